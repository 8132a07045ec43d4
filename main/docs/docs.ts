/**
 * The project's docs as pages: README.md, SECURITY.md and docs/*.md, rendered to HTML at
 * `/docs/<file>.md`, with `/docs/` listing them. The studio's server and the desktop app's
 * app:// protocol both answer `/docs/…` with `docsAnswer`, so the help links work the same in a
 * browser and in the app, and nothing is fetched from the web.
 *
 * A page is served only for a name in the list read from disk (never a path built from the
 * request), so `..`, encoded separators or any other file are simply not found. Links between
 * docs are rewritten to `/docs/…`; links to other files of the repository show as text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeHtml, renderMarkdown } from './markdown.ts';

/** The repository (or the packaged app's folder): README.md and docs/ are in it. */
export const DEFAULT_DOCS_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The URL path the docs live under. */
export const DOCS_PREFIX = '/docs/';

/** Top-level files served besides docs/*.md. */
const ROOT_FILES = ['README.md', 'SECURITY.md'];

/** What to answer a request under /docs. */
export interface DocsAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Whether a URL path is the docs' (`/docs`, `/docs/`, `/docs/…`). */
export function isDocsPath(pathname: string): boolean {
  return pathname === '/docs' || pathname.startsWith(DOCS_PREFIX);
}

/** Each served doc: its name in the URL → its path in the repository (`/`-separated). */
export function docsFiles(root: string = DEFAULT_DOCS_ROOT): Map<string, string> {
  const files = new Map<string, string>();
  const list = (dir: string) => {
    try {
      return readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      return [];
    }
  };
  const rootNames = new Set(list('').map((e) => e.isFile() && e.name));
  for (const name of ROOT_FILES) if (rootNames.has(name)) files.set(name, name);
  for (const entry of list('docs')) {
    if (entry.isFile() && /^[a-z0-9][\w-]*\.md$/i.test(entry.name) && !files.has(entry.name))
      files.set(entry.name, `docs/${entry.name}`);
  }
  return files;
}

/** Where a doc's link goes on the served pages, or undefined to show its text only. */
export function docsLink(
  href: string,
  from: string,
  files: ReadonlyMap<string, string>,
): string | undefined {
  if (href.startsWith('#')) return href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return /^(https?|mailto):/i.test(href) ? href : undefined;
  const hash = href.indexOf('#');
  const target = hash >= 0 ? href.slice(0, hash) : href;
  const fragment = hash >= 0 ? href.slice(hash) : '';
  if (!target || target.startsWith('/')) return undefined;
  const repoPath = path.posix.normalize(path.posix.join(path.posix.dirname(from), target));
  for (const [name, file] of files)
    if (file === repoPath) return `${DOCS_PREFIX}${name}${fragment}`;
  return undefined;
}

/** The answer to a GET of `pathname` (already known to be under /docs). */
export function docsAnswer(pathname: string, root: string = DEFAULT_DOCS_ROOT): DocsAnswer {
  const files = docsFiles(root);
  if (pathname === '/docs' || pathname === DOCS_PREFIX) return page(indexPage(files, root));
  let name: string;
  try {
    name = decodeURIComponent(pathname.slice(DOCS_PREFIX.length));
  } catch {
    return notFound();
  }
  const file = files.get(name);
  if (!file) return notFound();
  let text: string;
  try {
    text = readFileSync(path.join(root, ...file.split('/')), 'utf8');
  } catch {
    return notFound();
  }
  const { html, title } = renderMarkdown(text, (href) => docsLink(href, file, files));
  return page(layout(title ?? name, name, html));
}

const notFound = (): DocsAnswer => ({
  status: 404,
  contentType: 'text/plain; charset=utf-8',
  body: 'Not Found\n',
});

const page = (body: string): DocsAnswer => ({
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body,
});

/** The list at /docs/: every doc by its title, README first. */
function indexPage(files: ReadonlyMap<string, string>, root: string): string {
  const items = [...files].map(([name, file]) => {
    let title = name;
    try {
      const first = /^#\s+(.+)$/m.exec(readFileSync(path.join(root, ...file.split('/')), 'utf8'));
      if (first?.[1]) title = first[1].replace(/[`*]/g, '');
    } catch {
      // A file that vanished since the listing keeps its name as its title.
    }
    return `<li><a href="${DOCS_PREFIX}${escapeHtml(name)}">${escapeHtml(title)}</a> <code>${escapeHtml(name)}</code></li>`;
  });
  return layout(
    'Docs',
    undefined,
    `<h1 id="docs">Society Studio docs</h1>\n<ul class="docs-index">\n${items.join('\n')}\n</ul>\n`,
  );
}

/**
 * The page around a doc. Its colours are the system's (Canvas, CanvasText, LinkText…) under
 * `color-scheme: light dark`, so it follows the person's light or dark setting with no palette
 * of its own; the stylesheet is inline because the page loads nothing else.
 */
function layout(title: string, name: string | undefined, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Society Studio docs</title>
<style>
:root { color-scheme: light dark; }
body { font: 16px/1.6 system-ui, sans-serif; margin: 0; background: Canvas; color: CanvasText; }
nav { padding: 0.6rem 1.5rem; border-bottom: 1px solid GrayText; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
a { color: LinkText; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
pre { overflow-x: auto; padding: 0.8rem 1rem; border: 1px solid GrayText; border-radius: 6px; }
:not(pre) > code { padding: 0 0.25em; border: 1px solid GrayText; border-radius: 4px; }
.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid GrayText; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
blockquote { margin-left: 0; padding-left: 1rem; border-left: 3px solid GrayText; }
.link-text { text-decoration: underline dotted; }
</style>
</head>
<body>
<nav aria-label="Docs"><a href="${DOCS_PREFIX}">Society Studio docs</a>${name ? ` / <span>${escapeHtml(name)}</span>` : ''}</nav>
<main>
${body}</main>
</body>
</html>
`;
}
