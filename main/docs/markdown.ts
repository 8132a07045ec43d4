/**
 * A small Markdown renderer for the project's own docs (README.md, docs/*.md), served by the
 * studio and the desktop app at /docs/. It covers what those files use: headings, paragraphs,
 * lists (nested, ordered or not), fenced code, tables, block quotes, rules, links, inline code,
 * bold and emphasis; comments (`<!-- … -->` lines) are left out. Everything from the source is escaped: raw HTML in a doc shows as text and
 * is never passed through, so a page is exactly what this file writes. Images are not loaded
 * (the page fetches nothing): their alt text shows instead.
 */

/** Where a link goes, as the page should write it; undefined: show its text only. */
export type LinkResolver = (href: string) => string | undefined;

/** A rendered doc: its body HTML, its title (the first heading) and its headings' anchors. */
export interface RenderedMarkdown {
  html: string;
  title: string | undefined;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The heading's words without inline Markdown: what GitHub builds its anchor from. */
function plainText(inline: string): string {
  return inline.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

/** Renders Markdown to HTML; links go where `resolve` says. */
export function renderMarkdown(source: string, resolve: LinkResolver): RenderedMarkdown {
  const slugs = new Map<string, number>();
  let title: string | undefined;
  const inline = (text: string) => renderInline(text, resolve);

  const heading = (level: number, text: string): string => {
    const base = headingSlug(plainText(text));
    const seen = slugs.get(base) ?? 0;
    slugs.set(base, seen + 1);
    const id = seen === 0 ? base : `${base}-${seen}`;
    if (title === undefined) title = plainText(text);
    return `<h${level} id="${escapeHtml(id)}">${inline(text)}</h${level}>\n`;
  };

  const blocks = (lines: string[], tight = false): string => {
    const out: string[] = [];
    let i = 0;
    const startsBlock = (line: string) =>
      FENCE.test(line) || HEADING.test(line) || LIST_ITEM.test(line) || QUOTE.test(line);
    while (i < lines.length) {
      const line = lines[i] ?? '';
      if (!line.trim()) {
        i++;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        const indent = fence[1]?.length ?? 0;
        const marker = fence[2] ?? '```';
        const code: string[] = [];
        i++;
        while (i < lines.length && !(lines[i] ?? '').trim().startsWith(marker)) {
          code.push(dedent(lines[i] ?? '', indent));
          i++;
        }
        i++;
        const lang = fence[3] ? ` class="language-${escapeHtml(fence[3])}"` : '';
        out.push(`<pre><code${lang}>${escapeHtml(code.join('\n'))}</code></pre>\n`);
        continue;
      }
      if (line.trimStart().startsWith('<!--')) {
        // A comment is for whoever edits the file (GitHub hides it too): it is left out.
        while (i < lines.length && !(lines[i] ?? '').includes('-->')) i++;
        i++;
        continue;
      }
      const head = HEADING.exec(line);
      if (head) {
        out.push(heading(head[1]?.length ?? 1, head[2] ?? ''));
        i++;
        continue;
      }
      if (RULE.test(line)) {
        out.push('<hr>\n');
        i++;
        continue;
      }
      if (line.includes('|') && TABLE_SEPARATOR.test(lines[i + 1] ?? '')) {
        const rows: string[] = [line];
        i += 2;
        while (i < lines.length && (lines[i] ?? '').includes('|') && (lines[i] ?? '').trim()) {
          rows.push(lines[i] ?? '');
          i++;
        }
        out.push(table(rows, inline));
        continue;
      }
      if (QUOTE.test(line)) {
        const quoted: string[] = [];
        while (i < lines.length && QUOTE.test(lines[i] ?? '')) {
          quoted.push(QUOTE.exec(lines[i] ?? '')?.[1] ?? '');
          i++;
        }
        out.push(`<blockquote>\n${blocks(quoted)}</blockquote>\n`);
        continue;
      }
      if (LIST_ITEM.test(line)) {
        const end = listEnd(lines, i);
        out.push(list(lines.slice(i, end)));
        i = end;
        continue;
      }
      const paragraph: string[] = [line.trim()];
      i++;
      while (i < lines.length && (lines[i] ?? '').trim() && !startsBlock(lines[i] ?? '')) {
        if (RULE.test(lines[i] ?? '')) break;
        paragraph.push((lines[i] ?? '').trim());
        i++;
      }
      const text = inline(paragraph.join('\n'));
      out.push(tight ? `${text}\n` : `<p>${text}</p>\n`);
    }
    return out.join('');
  };

  /** A list's items, each rendered as blocks of its own lines (nested lists, code, text). */
  const list = (lines: string[]): string => {
    const first = LIST_ITEM.exec(lines[0] ?? '');
    const baseIndent = first?.[1]?.length ?? 0;
    const ordered = isOrdered(first?.[2]);
    const items: string[][] = [];
    let loose = false;
    for (const [n, line] of lines.entries()) {
      const item = LIST_ITEM.exec(line);
      if (item && (item[1]?.length ?? 0) <= baseIndent) {
        items.push([item[3] ?? '']);
        continue;
      }
      const current = items.at(-1);
      if (!current) continue;
      if (!line.trim() && n + 1 < lines.length) {
        const next = lines[n + 1] ?? '';
        const nextItem = LIST_ITEM.exec(next);
        if (nextItem && (nextItem[1]?.length ?? 0) <= baseIndent) loose = true;
      }
      // Continuation lines are indented under the item's text; nested lists keep their depth.
      current.push(dedent(line, baseIndent + 2));
    }
    const start = ordered ? Number.parseInt(first?.[2] ?? '1', 10) : 1;
    const tag = ordered ? 'ol' : 'ul';
    const open = ordered && start !== 1 ? `<ol start="${start}">` : `<${tag}>`;
    const body = items.map((item) => `<li>${blocks(item, !loose).trimEnd()}</li>\n`).join('');
    return `${open}\n${body}</${tag}>\n`;
  };

  const html = blocks(source.replace(/\r\n?/g, '\n').split('\n'));
  return { html, title };
}

/** Whether a list item's marker is a number (an ordered list) rather than a bullet. */
const isOrdered = (marker: string | undefined) => /\d/.test(marker ?? '');

/**
 * Where the list starting at `start` ends: at a line that is neither an item nor indented, or
 * at an item of the other kind (a numbered list after a bulleted one) at the list's depth.
 */
function listEnd(lines: string[], start: number): number {
  const first = LIST_ITEM.exec(lines[start] ?? '');
  const depth = first?.[1]?.length ?? 0;
  const ordered = isOrdered(first?.[2]);
  /** Whether a line is an item of this list, one of a nested list, or indented under one. */
  const belongs = (line: string) => {
    const item = LIST_ITEM.exec(line);
    if (item) return (item[1]?.length ?? 0) > depth || isOrdered(item[2]) === ordered;
    return line.trim() !== '' && (/^ */.exec(line)?.[0].length ?? 0) > depth;
  };
  let i = start + 1;
  let inFence: string | undefined;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (inFence) {
      if (line.trim().startsWith(inFence)) inFence = undefined;
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence && (fence[1]?.length ?? 0) > depth) {
      inFence = fence[2];
      i++;
      continue;
    }
    if (!line.trim()) {
      if (belongs(lines[i + 1] ?? '')) {
        i++;
        continue;
      }
      return i;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      if (!belongs(line)) return i;
      i++;
      continue;
    }
    if (/^\s+\S/.test(line)) {
      i++;
      continue;
    }
    // A line right under an item's text continues it (Markdown's lazy continuation).
    if (HEADING.test(line) || FENCE.test(line) || RULE.test(line) || QUOTE.test(line)) return i;
    if (line.includes('|') && TABLE_SEPARATOR.test(lines[i + 1] ?? '')) return i;
    i++;
  }
  return i;
}

/** Removes up to `count` leading spaces. */
function dedent(line: string, count: number): string {
  let n = 0;
  while (n < count && line[n] === ' ') n++;
  return line.slice(n);
}

/** A table's cells: split on `|` outside code spans, `\|` kept as a bar. */
function cells(row: string): string[] {
  const trimmed = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  const out: string[] = [];
  let cell = '';
  let code = false;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (c === '\\' && trimmed[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (c === '`') {
      code = !code;
      cell += c;
    } else if (c === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  out.push(cell.trim());
  return out;
}

function table(rows: string[], inline: (text: string) => string): string {
  const [header = '', ...body] = rows;
  const th = cells(header)
    .map((c) => `<th>${inline(c)}</th>`)
    .join('');
  const trs = body
    .map(
      (row) =>
        `<tr>${cells(row)
          .map((c) => `<td>${inline(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  return `<div class="table"><table>\n<thead><tr>${th}</tr></thead>\n<tbody>\n${trs}\n</tbody>\n</table></div>\n`;
}

/** Characters Markdown lets a backslash make literal. */
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|<>~]/;

/**
 * Inline Markdown: code spans, links and backslash escapes become placeholders first, the rest
 * is escaped, bold and emphasis are marked on the escaped text, then the placeholders return.
 */
export function renderInline(text: string, resolve: LinkResolver): string {
  // U+E000 (private use) marks a placeholder below: the source's own must not look like one.
  const source = text.replace(/\uE000/g, '\uFFFD');
  const held: string[] = [];
  const hold = (html: string) => `\uE000${held.push(html) - 1}\uE000`;
  let plain = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? '';
    if (c === '\\' && ESCAPABLE.test(source[i + 1] ?? '')) {
      plain += hold(escapeHtml(source[i + 1] ?? ''));
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(source.slice(i))?.[0] ?? '`';
      const close = source.indexOf(run, i + run.length);
      if (close > 0) {
        const code = source.slice(i + run.length, close).replace(/\n/g, ' ');
        plain += hold(`<code>${escapeHtml(code.length > 2 ? code.trim() : code)}</code>`);
        i = close + run.length;
        continue;
      }
    }
    if (c === '[' || (c === '!' && source[i + 1] === '[')) {
      const link = parseLink(source, c === '!' ? i + 1 : i);
      if (link) {
        const label = renderInline(link.label, resolve);
        if (c === '!') plain += hold(label);
        else {
          const href = resolve(link.href);
          plain += hold(
            href === undefined
              ? `<span class="link-text" title="${escapeHtml(link.href)}">${label}</span>`
              : `<a href="${escapeHtml(href)}"${/^[a-z]+:/i.test(href) ? ' rel="external noopener noreferrer"' : ''}>${label}</a>`,
          );
        }
        i = link.end;
        continue;
      }
    }
    plain += c;
    i++;
  }
  const marked = escapeHtml(plain)
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w*])\*(?=[^\s*])([^*]*?[^\s*])\*(?![\w*])/g, '$1<em>$2</em>')
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1<em>$2</em>')
    .replace(/\n/g, ' ');
  return marked.replace(/\uE000(\d+)\uE000/g, (_, n: string) => held[Number(n)] ?? '');
}

/** `[label](href)` starting at `start`, with nested brackets in the label. */
function parseLink(
  text: string,
  start: number,
): { label: string; href: string; end: number } | undefined {
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '[') depth++;
    else if (text[i] === ']' && --depth === 0) break;
  }
  if (depth !== 0 || text[i + 1] !== '(') return undefined;
  const close = text.indexOf(')', i + 2);
  if (close < 0) return undefined;
  const href = text
    .slice(i + 2, close)
    .trim()
    .replace(/\s+"[^"]*"$/, '');
  if (/\s/.test(href)) return undefined;
  return { label: text.slice(start + 1, i), href, end: close + 1 };
}
