/**
 * The desktop shell's security policy as plain data and functions, so it is unit-tested under
 * Node: main.ts (the only module here that imports `electron` at run time) applies it. Items
 * S1–S9 refer to shared/research/anchors-style-security.md, Part B.
 *
 * The page is served from `app://bundle/` (S2): a privileged, standard, secure scheme whose
 * files come only from the built renderer folder. Its origin is the one origin the window may
 * show, navigate to, or receive IPC from.
 */
import path from 'node:path';
import type { WebPreferences } from 'electron';
import { isDocsPath } from '../docs/docs.ts';

/** The scheme the page is served from, registered as privileged before `ready` (S2). */
export const APP_SCHEME = 'app';
/** The scheme's only host: the built renderer. */
export const APP_HOST = 'bundle';
/** The page the window opens. */
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * The Content-Security-Policy of every app:// response (S3). Scripts come only from the bundle
 * (no inline script, no eval). Styles allow inline because React Flow and Monaco set style
 * attributes and inject style elements; Monaco's workers are bundled files or blobs. The page
 * makes no network request at all: it reaches the backend through IPC, so `connect-src` is only
 * its own origin (no `ws:`, unlike the studio's policy).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers sent with every app:// response besides its Content-Type. */
export const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/**
 * The editor window's web preferences (S1): an isolated, sandboxed renderer with no Node, and
 * every web-security default kept. DevTools only outside packaged builds (S5).
 */
export function windowWebPreferences(preload: string, packaged: boolean): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    devTools: !packaged,
  };
}

/**
 * The web preferences of a docs window (the help's links, `/docs/…`): the editor window's
 * isolation and sandbox, and no preload, so a docs page has no way to the backend at all.
 */
export function docsWindowPreferences(packaged: boolean): WebPreferences {
  const { preload: _none, ...rest } = windowWebPreferences('', packaged);
  return rest;
}

/**
 * The docs path (`/docs/…`) an app:// URL names, or undefined for any other URL. The docs are
 * answered by main/docs/docs.ts, which serves only the names it lists.
 */
export function appDocsPath(url: string): string | undefined {
  if (!isAppUrl(url)) return undefined;
  const parsed = parse(url);
  return parsed && isDocsPath(parsed.pathname) ? parsed.pathname : undefined;
}

/** The URL parsed, or undefined when it is not a URL. */
function parse(url: string | undefined | null): URL | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Whether `url` is on the app's own origin: scheme `app:`, host exactly `bundle`, no user, no
 * password, no port. Compared on the parsed URL, never with `startsWith` (S4), so
 * `app://bundle.evil.example/` or `app://bundle@evil.example/` are other origins.
 */
export function isAppUrl(url: string | undefined | null): boolean {
  const parsed = parse(url);
  return (
    parsed !== undefined &&
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.host === APP_HOST &&
    parsed.username === '' &&
    parsed.password === '' &&
    parsed.port === ''
  );
}

/**
 * Whether the window may navigate (or be redirected) to `url` (S4). Only the app's own pages:
 * no `https:`, `file:`, `javascript:`, `data:` or other app hosts. Links to the web are not
 * opened either (the editor has none that must be), so nothing reaches `shell.openExternal`.
 */
export function isAllowedNavigation(url: string): boolean {
  return isAppUrl(url);
}

/**
 * Whether a request made by the page may go out at all. The page talks to the backend over
 * IPC, so anything that reaches the network or the disk is cancelled (besides the CSP refusing
 * it first): http(s), ws(s), ftp and file URLs. Internal schemes (app:, data:, blob:, devtools)
 * are left alone.
 */
export function isBlockedRequest(url: string): boolean {
  const parsed = parse(url);
  if (!parsed) return true;
  return ['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:'].includes(parsed.protocol);
}

/**
 * Whether an IPC message comes from the editor: from a top-level frame (not an iframe) whose
 * document is on the app's origin (S7, checklist item 17). A frame that is gone, another
 * origin or a subframe is refused.
 */
export function isTrustedSender(frameUrl: string | undefined | null, topFrame: boolean): boolean {
  return topFrame && isAppUrl(frameUrl);
}

/** A `..` segment, with `/` or `\` as separators, after percent-decoding. */
const DOT_DOT_SEGMENT = /(^|[/\\])\.\.([/\\]|$)/;

/**
 * The file an app:// URL names inside `root` (the built renderer), or undefined when it names
 * nothing servable: another scheme or host, a `..` segment (also encoded as `%2e%2e`, `%2f`,
 * `%5c`), a dotfile, a NUL byte, or a path that would leave `root` by any other route. `/`
 * is index.html. Only the raw URL is trusted to say what was asked: a standard scheme's parser
 * already drops `..`, but refusing it here keeps the rule independent of that.
 */
export function resolveAppFile(url: string, root: string): string | undefined {
  if (!isAppUrl(url)) return undefined;
  const rawPath = url.slice(`${APP_SCHEME}://${APP_HOST}`.length).split(/[?#]/, 1)[0] ?? '';
  let decodedRaw: string;
  let pathname: string;
  try {
    decodedRaw = decodeURIComponent(rawPath);
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
  if (DOT_DOT_SEGMENT.test(decodedRaw) || DOT_DOT_SEGMENT.test(pathname)) return undefined;
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined;
  const relative = pathname === '/' || pathname === '' ? '/index.html' : pathname;
  const segments = relative.split('/').filter(Boolean);
  if (segments.length === 0 || segments.some((s) => s.startsWith('.'))) return undefined;
  const base = path.resolve(root);
  const file = path.resolve(base, ...segments);
  return file.startsWith(base + path.sep) ? file : undefined;
}

export { mimeTypeOf } from '../renderer-files.ts';
