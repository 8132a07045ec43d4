/**
 * What the editor benchmark (bench/editor.ts) stands on: a Chromium to drive, the renderer
 * build the studio serves, the plain React Flow peer page and its static server, and the
 * documents written to the workspace.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileGraph } from '../app/compiler/index.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { DIST_RENDERER_DIR, ensureEditorBuild } from '../scripts/editor-build.ts';
import { societyDocument, societyFileName } from './society-documents.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PEER_DIR = fileURLToPath(new URL('./editor-peer/', import.meta.url));

/** Where Chromium usually is; BENCH_CHROMIUM wins. */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** The Chromium to drive: `explicit` if it exists, else the first of the usual places. */
export function findChromium(explicit = process.env.BENCH_CHROMIUM): string | undefined {
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  return CHROMIUM_CANDIDATES.find((path) => existsSync(path));
}

/** The renderer build the studio serves in the benchmark. */
export interface RendererBuild {
  dir: string;
  builtAt: Date;
  /**
   * How it came to be: dist/renderer as found (its record says it was made from the current
   * sources), dist/renderer built now (missing or made from older sources), built afresh into a
   * folder of the benchmark's own, or given.
   */
  origin: 'dist' | 'built' | 'fresh' | 'given';
}

/** The renderer build to measure: given, built afresh, or dist/renderer built when stale. */
export async function prepareRenderer(
  options: {
    rendererDir?: string;
    build: boolean;
    /** Where the studio's build is (default dist/renderer): made current as `npm start` makes it. */
    distDir?: string;
  },
  tmp: string,
  log: (line: string) => void,
): Promise<RendererBuild> {
  const builtAt = (dir: string) => statSync(join(dir, 'index.html')).mtime;
  if (options.rendererDir) {
    const dir = options.rendererDir;
    return { dir, builtAt: builtAt(dir), origin: 'given' };
  }
  if (options.build) {
    // Into a folder of its own, as tests/e2e does: a `vite build` beside the benchmark cannot
    // change the page under it.
    const dir = join(tmp, 'renderer');
    log('building the renderer…');
    const { build } = await import('vite');
    await build({
      configFile: join(REPO, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: dir, emptyOutDir: true, sourcemap: false },
    });
    return { dir, builtAt: builtAt(dir), origin: 'fresh' };
  }
  // The studio's own check (scripts/editor-build.ts): the build's record holds a hash of every
  // file it was made from, so an edit, a deleted file or a new node type makes it stale, which
  // file times cannot tell (a checkout or a copy sets them anew).
  const dir = options.distDir ?? DIST_RENDERER_DIR;
  const built = await ensureEditorBuild({ outDir: dir, say: log });
  return { dir, builtAt: builtAt(dir), origin: built ? 'built' : 'dist' };
}

/** Builds the peer page into `outDir` with Vite and React's plugin. */
export async function buildPeer(outDir: string): Promise<void> {
  const [{ build }, { default: react }] = await Promise.all([
    import('vite'),
    import('@vitejs/plugin-react'),
  ]);
  await build({
    configFile: false,
    root: PEER_DIR,
    base: './',
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, modulePreload: { polyfill: false } },
  });
}

/** The same graph as React Flow default nodes: labels only, one handle each side. */
export function peerGraph(doc: GraphDocument) {
  return {
    nodes: doc.nodes.map((n) => ({
      id: n.id,
      position: n.position,
      data: { label: typeof n.data.label === 'string' ? n.data.label : n.id },
    })),
    edges: doc.edges.map((e) => ({ id: e.id, source: e.source, target: e.target })),
  };
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/** A static server on 127.0.0.1 for the peer's build and graphs. */
export async function serve(root: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Writes the documents to the workspace after checking that each compiles. */
export async function writeDocuments(sizes: number[], workspaceDir: string) {
  const documents = new Map<number, { doc: GraphDocument; bytes: number }>();
  for (const n of sizes) {
    const doc = societyDocument(n);
    // Measuring a document the editor would reject would measure its problem list instead.
    const compiled = await compileGraph(doc);
    if (!compiled.ok) {
      throw new Error(
        `the ${n}-node society does not compile: ${JSON.stringify(compiled.problems.slice(0, 3))}`,
      );
    }
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    writeFileSync(join(workspaceDir, societyFileName(n)), text);
    documents.set(n, { doc, bytes: Buffer.byteLength(text) });
  }
  return documents;
}
