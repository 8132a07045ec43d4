/**
 * The editor with big documents, in headless Chromium: how long opening a 100-, 500- and
 * 1,000-node society takes, and the frame rate while panning it, side by side with a plain
 * React Flow page showing the same graph (bench/editor-peer/).
 *
 *   node bench/editor.ts
 *   BENCH_EDITOR_SIZES=100,500,1000 BENCH_EDITOR_TRIALS=3 BENCH_EDITOR_PAN_MS=3000 node bench/editor.ts
 *   BENCH_EDITOR_BUILD=1 node bench/editor.ts           (build this checkout's renderer afresh)
 *   BENCH_EDITOR_RENDERER=DIR node bench/editor.ts      (measure another renderer build)
 *   BENCH_CHROMIUM=/path/to/chromium node bench/editor.ts  (default: /usr/bin/chromium, …)
 *   BENCH_EDITOR_GPU=1 node bench/editor.ts             (leave out --disable-gpu)
 *
 * `npm run bench` runs it too (`npm run bench -- --no-editor` leaves it out) and prints a skip
 * line when no Chromium is found: Playwright's own browsers are never downloaded. The studio
 * serves dist/renderer, built with `npx vite build` when missing; a build older than the
 * sources is measured as it is, with a warning.
 *
 * For each size and trial, in a fresh browser context:
 * - ours: the studio server in this process (temp workspace, temp run store), the page at its
 *   URL; Open… → a click on the file, as a user does. Load time runs from that click until
 *   every node is in the DOM, measured and shown (React Flow hides a node until it has its
 *   size), and until the view is framed. The canvas does not set `onlyRenderVisibleElements`,
 *   so every node is rendered however few are in view: both counts are printed.
 * - peer: the same nodes and edges as default React Flow nodes, on a canvas of the same size
 *   with the same background, controls and minimap, opened by a click too.
 * - panning: the mouse is pressed on the empty pane and dragged for 3 s, once at about 100%
 *   zoom (the Controls' + button from the framed view: a few nodes in view) and once zoomed out
 *   to fit (every node in view, down to React Flow's 10% minimum zoom). fps counts the frames in
 *   which the view moved (requestAnimationFrame in the page, comparing the viewport transform);
 *   p95 is of the time between them. Main-thread busy time comes from CDP Performance metrics.
 *
 * Figures only; nothing is asserted. Each figure is the median over the trials.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { compileGraph } from '../app/compiler/index.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { openRunStore } from '../app/store/index.ts';
import { startStudio } from '../main/studio/server.ts';
import { societyDocument, societyFileName } from './society-documents.ts';
import { isMain, machineLine, median, pad } from './support.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const RENDERER_DIR = join(REPO, 'dist', 'renderer');
const PEER_DIR = fileURLToPath(new URL('./editor-peer/', import.meta.url));
const PROBE = fileURLToPath(new URL('./editor-probe.js', import.meta.url));

/** Where Chromium usually is; BENCH_CHROMIUM wins. */
const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** A common desktop size; the documents' grids are shaped for the canvas it leaves. */
const WINDOW = { width: 1920, height: 1080 };
/** Time between two mouse moves while panning: a mouse reports at 125 Hz or more. */
const MOVE_EVERY_MS = 8;

export interface EditorBenchOptions {
  sizes?: number[];
  trials?: number;
  panMs?: number;
  /** The Chromium executable; default BENCH_CHROMIUM or the first of the usual places. */
  chromium?: string;
  /** Leave the GPU on (no --disable-gpu). */
  gpu?: boolean;
  /** The renderer build the studio serves; default dist/renderer, built when missing. */
  rendererDir?: string;
  /** Build this checkout's renderer into a temp folder and measure that. */
  build?: boolean;
  /** How long a page may take to show a document before its size is given up. Default 60 s. */
  loadTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface LoadTimes {
  /** Click → all N node elements in the DOM. */
  domMs: number;
  /** Click → all of them measured and visible. */
  visibleMs: number;
  /** Click → the view framed on the new document. */
  framedMs: number;
}

export interface PanFigures {
  zoom: number;
  /** Nodes whose box intersects the pane. */
  inView: number;
  /** Frames per second in which the view had moved: the motion someone dragging sees. */
  fps: number;
  /** The 95th percentile, and the longest, of the times between two such frames. */
  p95FrameMs: number;
  maxFrameMs: number;
  /** Every animation frame per second, moved or not. */
  rafFps: number;
  /** Viewport transform changes (pan steps React Flow applied) and mouse moves sent. */
  viewportChanges: number;
  mouseMoves: number;
  /** Share of the drag's wall time the page's main thread was busy, and on what. */
  busy: { task: number; script: number; style: number; layout: number };
}

export interface PageFigures {
  /** Set when the page did not show every node in time: nothing else was measured. */
  timedOut?: {
    afterMs: number /** Unknown when the page was too busy to answer. */;
    inDom?: number;
  };
  load: LoadTimes;
  renderedNodes: number;
  renderedEdges: number;
  atWorkingZoom: PanFigures;
  atFit: PanFigures;
}

export interface EditorSizeResult {
  nodes: number;
  edges: number;
  documentBytes: number;
  ours: PageFigures;
  peer: PageFigures;
}

export type EditorBenchResult =
  | { skipped: string }
  | {
      browser: string;
      flags: string[];
      window: typeof WINDOW;
      canvas: { width: number; height: number };
      trials: number;
      panMs: number;
      renderer: RendererBuild;
      sizes: EditorSizeResult[];
      elapsedMs: number;
    };

/** The probe's functions (bench/editor-probe.js) as the page sees them. */
interface Probe {
  load(
    selector: string,
    n: number,
    timeoutMs: number,
  ): Promise<LoadTimes & { timedOut?: true; count?: number }>;
  counts(): {
    nodes: number;
    edges: number;
    inView: number;
    zoom: number;
    pane: { width: number; height: number } | null;
  };
  transform(): { x: number; y: number; zoom: number; text: string };
  settle(quietFrames?: number, timeoutMs?: number): Promise<{ zoom: number }>;
  panePoint(): { x: number; y: number };
  startFrames(): void;
  stopFrames(): { times: number[]; moved: number[]; viewportChanges: number };
}

/** Calls a probe function in the page (the arrow is serialized: it may use only its arguments). */
function probe<K extends keyof Probe>(
  page: Page,
  method: K,
  ...args: Parameters<Probe[K]>
): Promise<Awaited<ReturnType<Probe[K]>>> {
  return page.evaluate(
    ([m, a]) => {
      const bench = (
        globalThis as unknown as { __bench: Record<string, (...x: unknown[]) => unknown> }
      ).__bench;
      return bench[m]!(...a);
    },
    [method, args] as [string, unknown[]],
  ) as Promise<Awaited<ReturnType<Probe[K]>>>;
}

export function findChromium(explicit = process.env.BENCH_CHROMIUM): string | undefined {
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  return CHROMIUM_CANDIDATES.find((path) => existsSync(path));
}

/** The renderer build the studio serves in the benchmark. */
export interface RendererBuild {
  dir: string;
  builtAt: Date;
  /** How it came to be: dist/renderer as found, built because missing, built afresh, given. */
  origin: 'dist' | 'built' | 'fresh' | 'given';
  /** dist/renderer is older than a renderer, app or nodes source file. */
  stale: boolean;
}

/** The newest modification time among the sources the renderer bundles. */
function newestSource(): number {
  let newest = 0;
  for (const folder of ['renderer', 'app', 'nodes']) {
    for (const entry of readdirSync(join(REPO, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(tsx?|css|html)$/.test(entry.name)) {
        newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
      }
    }
  }
  return newest;
}

async function prepareRenderer(
  options: { rendererDir?: string; build: boolean },
  tmp: string,
  log: (line: string) => void,
): Promise<RendererBuild> {
  const builtAt = (dir: string) => statSync(join(dir, 'index.html')).mtime;
  if (options.rendererDir) {
    const dir = options.rendererDir;
    return { dir, builtAt: builtAt(dir), origin: 'given', stale: false };
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
    return { dir, builtAt: builtAt(dir), origin: 'fresh', stale: false };
  }
  let origin: RendererBuild['origin'] = 'dist';
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    log('dist/renderer is missing: npx vite build…');
    const built = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
      cwd: REPO,
      stdio: ['ignore', 2, 2],
    });
    if (built.status !== 0) throw new Error(`npx vite build failed (exit ${built.status})`);
    origin = 'built';
  }
  const at = builtAt(RENDERER_DIR);
  return { dir: RENDERER_DIR, builtAt: at, origin, stale: newestSource() > at.getTime() };
}

/** Builds the peer page into `outDir` with Vite and React's plugin. */
async function buildPeer(outDir: string): Promise<void> {
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
function peerGraph(doc: GraphDocument) {
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
async function serve(root: string): Promise<{ url: string; server: Server }> {
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

async function busyTimes(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Frames per second, p95 and longest gap of a list of frame timestamps. */
function frameRate(times: number[]): { fps: number; p95: number; max: number } {
  if (times.length < 2) return { fps: 0, p95: Number.NaN, max: Number.NaN };
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  return {
    fps: gaps.length / ((times.at(-1)! - times[0]!) / 1000),
    p95: percentile(gaps, 95),
    max: Math.max(...gaps),
  };
}

/**
 * Presses on the empty pane and drags along a figure of eight for `durationMs`, a mouse move
 * every 8 ms. Moves are sent without waiting for the page to handle each one, as a real mouse
 * does: a busy page coalesces them and draws fewer frames, which is what is measured.
 */
async function pan(page: Page, cdp: CDPSession, durationMs: number): Promise<PanFigures> {
  await probe(page, 'settle');
  const { zoom, inView } = await probe(page, 'counts');
  const at = await probe(page, 'panePoint');
  await page.mouse.move(at.x, at.y);
  const before = await busyTimes(cdp);
  await probe(page, 'startFrames');
  await page.mouse.down();
  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let t = 0; t < durationMs; t = performance.now() - started) {
    const phase = (2 * Math.PI * t) / 1500;
    sent.push(page.mouse.move(at.x + 240 * Math.sin(phase), at.y + 120 * Math.sin(2 * phase)));
    const next = sent.length * MOVE_EVERY_MS - (performance.now() - started);
    if (next > 0) await sleep(next);
  }
  await Promise.all(sent);
  await page.mouse.up();
  const wallS = (performance.now() - started) / 1000;
  const { times, moved, viewportChanges } = await probe(page, 'stopFrames');
  const after = await busyTimes(cdp);
  const share = (name: string) => ((after[name] ?? 0) - (before[name] ?? 0)) / wallS;
  const seen = frameRate(moved);
  return {
    zoom,
    inView,
    fps: seen.fps,
    p95FrameMs: seen.p95,
    maxFrameMs: seen.max,
    rafFps: frameRate(times).fps,
    viewportChanges,
    mouseMoves: sent.length,
    busy: {
      task: share('TaskDuration'),
      script: share('ScriptDuration'),
      style: share('RecalcStyleDuration'),
      layout: share('LayoutDuration'),
    },
  };
}

/** Zooms in with the Controls' + button until about 100%, around the middle of the view. */
async function zoomToWorkingSize(page: Page): Promise<void> {
  for (let i = 0; i < 30; i++) {
    const { zoom } = await probe(page, 'settle', 3);
    if (zoom >= 0.95) return;
    await page.click('.react-flow__controls-zoomin');
  }
}

const NOT_MEASURED: PanFigures = {
  zoom: Number.NaN,
  inView: Number.NaN,
  fps: Number.NaN,
  p95FrameMs: Number.NaN,
  maxFrameMs: Number.NaN,
  rafFps: Number.NaN,
  viewportChanges: Number.NaN,
  mouseMoves: Number.NaN,
  busy: { task: Number.NaN, script: Number.NaN, style: Number.NaN, layout: Number.NaN },
};

/**
 * Opens the page, lets `prepare` get it to where one click opens the document (it returns
 * that click's selector), times the load, then pans at two zoom levels.
 */
async function measurePage(
  context: BrowserContext,
  url: string,
  n: number,
  panMs: number,
  loadTimeoutMs: number,
  prepare: (page: Page) => Promise<string>,
): Promise<PageFigures & { pane: { width: number; height: number } | null }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(url);
  const selector = await prepare(page);
  // The page checks its own deadline between frames; a page frozen in one long task cannot,
  // so this side gives up too, a little later.
  let deadline: NodeJS.Timeout | undefined;
  const load = await Promise.race([
    probe(page, 'load', selector, n, loadTimeoutMs),
    new Promise<{ timedOut: true; count?: number }>((resolve) => {
      deadline = setTimeout(() => resolve({ timedOut: true }), loadTimeoutMs + 5000);
    }),
  ]).finally(() => clearTimeout(deadline));
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  if (load.timedOut) {
    // The page may be frozen: leave it to the context's close.
    return {
      timedOut: {
        afterMs: loadTimeoutMs,
        ...(load.count === undefined ? {} : { inDom: load.count }),
      },
      load: {
        domMs: 'domMs' in load ? load.domMs : Number.NaN,
        visibleMs: Number.NaN,
        framedMs: Number.NaN,
      },
      renderedNodes: load.count ?? Number.NaN,
      renderedEdges: Number.NaN,
      atWorkingZoom: NOT_MEASURED,
      atFit: NOT_MEASURED,
      pane: null,
    };
  }
  const counts = await probe(page, 'counts');
  // Let the page finish what follows a load (the editor asks the studio to validate the
  // document 500 ms after a change) before timing frames.
  await sleep(1500);
  await zoomToWorkingSize(page);
  const atWorkingZoom = await pan(page, cdp, panMs);
  await page.click('.react-flow__controls-fitview');
  const atFit = await pan(page, cdp, panMs);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await page.close();
  return {
    load,
    renderedNodes: counts.nodes,
    renderedEdges: counts.edges,
    atWorkingZoom,
    atFit,
    pane: counts.pane,
  };
}

/** The median of every figure over the trials; a trial that timed out stands for all. */
function medianFigures(all: PageFigures[]): PageFigures {
  const stuck = all.find((f) => f.timedOut);
  if (stuck) return stuck;
  const m = (pick: (f: PageFigures) => number) => median(all.map(pick));
  const panMedian = (key: 'atWorkingZoom' | 'atFit'): PanFigures => ({
    zoom: m((f) => f[key].zoom),
    inView: m((f) => f[key].inView),
    fps: m((f) => f[key].fps),
    p95FrameMs: m((f) => f[key].p95FrameMs),
    maxFrameMs: m((f) => f[key].maxFrameMs),
    rafFps: m((f) => f[key].rafFps),
    viewportChanges: m((f) => f[key].viewportChanges),
    mouseMoves: m((f) => f[key].mouseMoves),
    busy: {
      task: m((f) => f[key].busy.task),
      script: m((f) => f[key].busy.script),
      style: m((f) => f[key].busy.style),
      layout: m((f) => f[key].busy.layout),
    },
  });
  return {
    load: {
      domMs: m((f) => f.load.domMs),
      visibleMs: m((f) => f.load.visibleMs),
      framedMs: m((f) => f.load.framedMs),
    },
    renderedNodes: m((f) => f.renderedNodes),
    renderedEdges: m((f) => f.renderedEdges),
    atWorkingZoom: panMedian('atWorkingZoom'),
    atFit: panMedian('atFit'),
  };
}

/** Writes the documents to the workspace after checking that each compiles. */
async function writeDocuments(sizes: number[], workspaceDir: string) {
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

export async function benchEditor(options: EditorBenchOptions = {}): Promise<EditorBenchResult> {
  const env = process.env;
  const sizes = options.sizes ?? (env.BENCH_EDITOR_SIZES ?? '100,500,1000').split(',').map(Number);
  const trials = Math.max(1, options.trials ?? Number(env.BENCH_EDITOR_TRIALS ?? 3));
  const panMs = options.panMs ?? Number(env.BENCH_EDITOR_PAN_MS ?? 3000);
  const loadTimeoutMs = options.loadTimeoutMs ?? Number(env.BENCH_EDITOR_LOAD_TIMEOUT_MS ?? 60_000);
  const gpu = options.gpu ?? env.BENCH_EDITOR_GPU === '1';
  const log = options.log ?? (() => {});
  const executablePath = options.chromium ?? findChromium();
  if (!executablePath) {
    return {
      skipped: env.BENCH_CHROMIUM
        ? `BENCH_CHROMIUM=${env.BENCH_CHROMIUM} does not exist`
        : `no Chromium found (set BENCH_CHROMIUM, or install one at ${CHROMIUM_CANDIDATES[0]})`,
    };
  }
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'society-editor-bench-'));
  const cleanup: Array<() => unknown> = [() => rmSync(dir, { recursive: true, force: true })];
  try {
    const rendererDir = options.rendererDir ?? env.BENCH_EDITOR_RENDERER;
    const renderer = await prepareRenderer(
      {
        ...(rendererDir ? { rendererDir } : {}),
        build: options.build ?? env.BENCH_EDITOR_BUILD === '1',
      },
      dir,
      log,
    );
    if (renderer.stale) {
      log(
        'dist/renderer is older than the sources: measuring it anyway (BENCH_EDITOR_BUILD=1 builds afresh)',
      );
    }
    const workspaceDir = join(dir, 'workspace');
    mkdirSync(workspaceDir);
    const documents = await writeDocuments(sizes, workspaceDir);

    log('building the plain React Flow peer…');
    const peerDir = join(dir, 'peer');
    await buildPeer(peerDir);
    mkdirSync(join(peerDir, 'graphs'));
    for (const [n, { doc }] of documents) {
      writeFileSync(join(peerDir, 'graphs', `graph-${n}.json`), JSON.stringify(peerGraph(doc)));
    }

    const store = openRunStore(join(dir, 'society.db'));
    cleanup.unshift(() => store.close());
    const studio = await startStudio({
      store,
      workspaceDir,
      rendererDir: renderer.dir,
      log: (line) => log(`studio: ${line}`),
    });
    cleanup.unshift(() => studio.close());
    const peer = await serve(peerDir);
    cleanup.unshift(() => new Promise((resolve) => peer.server.close(resolve)));

    const flags = [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...(gpu ? [] : ['--disable-gpu']),
    ];
    const { chromium } = await import('playwright-core');
    const browser: Browser = await chromium.launch({ executablePath, headless: true, args: flags });
    cleanup.unshift(() => browser.close());

    const inContext = async <T>(work: (context: BrowserContext) => Promise<T>): Promise<T> => {
      const context = await browser.newContext({ viewport: WINDOW, deviceScaleFactor: 1 });
      try {
        await context.addInitScript({ path: PROBE });
        return await work(context);
      } finally {
        await context.close();
      }
    };
    let canvas: { width: number; height: number } | undefined;
    const results: EditorSizeResult[] = [];
    for (const n of sizes) {
      const { doc, bytes } = documents.get(n)!;
      const fileName = societyFileName(n);
      const ours: PageFigures[] = [];
      const peers: PageFigures[] = [];
      for (let trial = 0; trial < trials; trial++) {
        const runOurs = async () => {
          // A page that froze once will freeze again: one timeout stands for the size.
          if (ours.some((f) => f.timedOut)) return;
          log(`${n} nodes, trial ${trial + 1}/${trials}: editor…`);
          const figures = await inContext((context) =>
            measurePage(context, studio.url, n, panMs, loadTimeoutMs, async (page) => {
              await page
                .getByTestId('connection-status')
                .filter({ hasText: 'connected' })
                .waitFor();
              await page.getByTestId('tb-open').click();
              const selector = `[data-testid="file-${fileName}"]`;
              await page.locator(selector).waitFor();
              return selector;
            }),
          );
          canvas ??= figures.pane ?? undefined;
          ours.push(figures);
        };
        const runPeer = async () => {
          if (peers.some((f) => f.timedOut)) return;
          log(`${n} nodes, trial ${trial + 1}/${trials}: plain React Flow…`);
          // The peer's canvas takes the size of the editor's, so both frame the graph alike.
          const size = canvas ?? { width: 1380, height: 720 };
          const url = `${peer.url}?files=graph-${n}.json&w=${size.width}&h=${size.height}`;
          peers.push(
            await inContext((context) =>
              measurePage(context, url, n, panMs, loadTimeoutMs, async () => {
                return `[data-testid="file-graph-${n}.json"]`;
              }),
            ),
          );
        };
        // Alternate who goes first, so neither always meets a warmer (or busier) machine.
        if (trial % 2 === 0 || !canvas) {
          await runOurs();
          await runPeer();
        } else {
          await runPeer();
          await runOurs();
        }
      }
      results.push({
        nodes: n,
        edges: doc.edges.length,
        documentBytes: bytes,
        ours: medianFigures(ours),
        peer: medianFigures(peers),
      });
    }
    return {
      browser: `${browser.browserType().name()} ${browser.version()}`,
      flags,
      window: WINDOW,
      canvas: canvas ?? { width: 0, height: 0 },
      trials,
      panMs,
      renderer,
      sizes: results,
      elapsedMs: performance.now() - started,
    };
  } finally {
    for (const step of cleanup) await step();
  }
}

const ratio = (ours: number, peer: number) => `${(ours / peer).toFixed(1)}×`;
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const pct = (share: number) => `${Math.round(share * 100)}%`;
const minute = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ');

function rendererLine(b: RendererBuild): string {
  switch (b.origin) {
    case 'dist':
      return b.stale
        ? `dist/renderer of ${minute(b.builtAt)}, OLDER THAN THE SOURCES (BENCH_EDITOR_BUILD=1 builds afresh)`
        : `dist/renderer of ${minute(b.builtAt)}`;
    case 'built':
      return 'dist/renderer, built now';
    case 'fresh':
      return 'this checkout, built now';
    case 'given':
      return `${b.dir} of ${minute(b.builtAt)}`;
    default:
      return b.origin satisfies never;
  }
}

export function formatEditor(r: EditorBenchResult): string[] {
  if ('skipped' in r) return [`Editor canvas: skipped: ${r.skipped}`];
  const gpu = r.flags.includes('--disable-gpu') ? '--disable-gpu' : 'GPU allowed';
  const lines = [
    `Editor canvas: the studio's editor (ours) vs plain React Flow with default nodes (peer), same graph`,
    `  headless ${r.browser}, ${gpu}; window ${r.window.width}×${r.window.height}, canvas ` +
      `${r.canvas.width}×${r.canvas.height}; median of ${r.trials}; renderer: ${rendererLine(r.renderer)}`,
    '  load: click on the file in Open… → every node measured and shown',
    `  pan: ${r.panMs / 1000} s mouse drag on the pane; fps = frames in which the view moved, p95 = time between them`,
    '',
    `  ${pad('nodes', 7)}${pad('edges', 7)}${pad('in DOM', 11)}${pad('load ours / peer', 27)}` +
      `${pad('pan @100%: fps, p95 ms', 28)}${pad('pan @fit: fps, p95 ms', 28)}in view @fit`,
  ];
  const pan = (a: PanFigures, b: PanFigures) =>
    `${a.fps.toFixed(0)} / ${b.fps.toFixed(0)} (${ratio(a.fps, b.fps)}), ` +
    `${a.p95FrameMs.toFixed(0)} / ${b.p95FrameMs.toFixed(0)}`;
  const load = (f: PageFigures) =>
    f.timedOut ? `> ${whole(f.timedOut.afterMs / 1000)} s` : `${whole(f.load.visibleMs)}`;
  for (const s of r.sizes) {
    const o = s.ours;
    const p = s.peer;
    const stuck = o.timedOut ?? p.timedOut;
    lines.push(
      `  ${pad(whole(s.nodes), 7)}${pad(whole(s.edges), 7)}${pad(`${Number.isNaN(o.renderedNodes) ? '?' : o.renderedNodes}/${s.nodes}`, 11)}` +
        pad(
          `${load(o)} / ${load(p)} ms` +
            (stuck ? '' : ` (${ratio(o.load.visibleMs, p.load.visibleMs)})`),
          27,
        ) +
        (stuck
          ? 'not measured: a page did not show every node in time'
          : pad(pan(o.atWorkingZoom, p.atWorkingZoom), 28) +
            pad(pan(o.atFit, p.atFit), 28) +
            `${o.atFit.inView} at ${Math.round(o.atFit.zoom * 100)}%`),
    );
  }
  lines.push(
    '',
    '  details, ours | peer: load phases; panning @100% and @fit: all frames/s, main thread busy (js, style, layout)',
  );
  const details = (f: PageFigures) => {
    if (f.timedOut) {
      const after = whole(f.timedOut.afterMs / 1000);
      return f.timedOut.inDom === undefined
        ? `the page was still busy after ${after} s and did not answer`
        : `${f.timedOut.inDom} nodes in the DOM after ${after} s, not all shown`;
    }
    const busy = (a: PanFigures) =>
      `${a.rafFps.toFixed(0)} f/s, busy ${pct(a.busy.task)} (${pct(a.busy.script)}, ` +
      `${pct(a.busy.style)}, ${pct(a.busy.layout)})`;
    return (
      `in DOM ${whole(f.load.domMs)}, framed ${whole(f.load.framedMs)} ms; ` +
      `@${Math.round(f.atWorkingZoom.zoom * 100)}% ${busy(f.atWorkingZoom)}; @fit ${busy(f.atFit)}`
    );
  };
  for (const s of r.sizes) {
    lines.push(`  ${pad(whole(s.nodes), 7)}ours ${details(s.ours)}`);
    lines.push(`  ${pad('', 7)}peer ${details(s.peer)}`);
  }
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchEditor({ log: (line) => console.error(`[editor] ${line}`) });
  for (const line of formatEditor(result)) console.log(line);
  if (!('skipped' in result))
    console.log(`(editor took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
