/**
 * The editor with big documents, in headless Chromium: how long opening a 100-, 500- and
 * 1,000-node society takes, and the frame rate while panning it, side by side with a plain
 * React Flow page showing the same graph (bench/editor-peer/).
 *
 *   node bench/editor.ts
 *   BENCH_EDITOR_SIZES=100,500,1000 BENCH_EDITOR_TRIALS=3 BENCH_EDITOR_PAN_MS=3000 node bench/editor.ts
 *   BENCH_EDITOR_SIZES= node bench/editor.ts            (the Artist–Critic alone)
 *   BENCH_EDITOR_BUILD=1 node bench/editor.ts           (build this checkout's renderer afresh)
 *   BENCH_EDITOR_RENDERER=DIR node bench/editor.ts      (measure another renderer build)
 *   BENCH_CHROMIUM=/path/to/chromium node bench/editor.ts  (default: /usr/bin/chromium, …)
 *   BENCH_EDITOR_GPU=1 node bench/editor.ts             (leave out --disable-gpu)
 *
 * `npm run bench` runs it too (`npm run bench -- --no-editor` leaves it out) and prints a skip
 * line when no Chromium is found: Playwright's own browsers are never downloaded. The studio
 * serves dist/renderer, built first when missing or made from other sources than the current
 * ones (the content hash `npm start` checks, scripts/editor-build.ts), so it measures the
 * current editor.
 *
 * For each size and trial, in a fresh browser context:
 * - ours: the studio server in this process (temp workspace, temp run store), the page at its
 *   URL; Open… → a click on the file, as a user does. Load time runs from that click until what
 *   someone opening the document waits for: the view is framed, and every node whose top left
 *   corner lies in it is in the page, shown (React Flow hides a node until it knows its size)
 *   and with its handles, and stays so for five frames. Past 300 nodes the canvas builds only
 *   the cards in view (each card's size and ports are estimated until it is measured), the
 *   "in DOM" column; zoomed out it draws boxes without handles and its edges as one drawing.
 * - peer: the same nodes and edges as default React Flow nodes, on a canvas of the same size
 *   with the same background, controls and minimap, opened by a click too, its load timed the
 *   same way (it renders every node, and fits them once all are measured).
 * - panning: the mouse is pressed on the empty pane and dragged for 3 s, once at about 100%
 *   zoom (the Controls' + button from the framed view: a few nodes in view) and once zoomed out
 *   to fit (every node in view, down to React Flow's 10% minimum zoom). fps counts the frames in
 *   which the view moved (requestAnimationFrame in the page, comparing the viewport transform);
 *   p95 is of the time between them. Main-thread busy time comes from CDP Performance metrics.
 *
 * - the Artist–Critic (templates/nlsom-artist-critic.society.json, or a generated document of
 *   its shape when this checkout lacks the template: bench/editor-artist-critic.ts), opened the
 *   same way, load only: a society of 26 artist mindstorms and 50 critics should open in under
 *   a second. Its replicated group opens collapsed, so fewer cards than nodes are drawn.
 *   BENCH_EDITOR_ARTIST_CRITIC=0 leaves it out.
 *
 * Figures only; nothing is asserted. Each figure is the median over the trials.
 *
 * editor-setup.ts prepares what the run stands on, editor-measure.ts measures one page and
 * editor-report.ts prints the table.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { openRunStore } from '../app/store/index.ts';
import { startStudio } from '../main/studio/server.ts';
import { artistCriticForBench, drawnNodeCount } from './editor-artist-critic.ts';
import {
  type LoadTimes,
  measurePage,
  medianFigures,
  type PageFigures,
  WINDOW,
} from './editor-measure.ts';
import { formatEditor } from './editor-report.ts';
import {
  buildPeer,
  CHROMIUM_CANDIDATES,
  findChromium,
  peerGraph,
  prepareRenderer,
  type RendererBuild,
  serve,
  writeDocuments,
} from './editor-setup.ts';
import { societyFileName } from './society-documents.ts';
import { isMain, machineLine } from './support.ts';

export type { LoadTimes, PageFigures, PanFigures } from './editor-measure.ts';
export { formatEditor } from './editor-report.ts';
export { findChromium, type RendererBuild } from './editor-setup.ts';

const PROBE = fileURLToPath(new URL('./editor-probe.js', import.meta.url));

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
  /** Also open the Artist–Critic (default: yes unless BENCH_EDITOR_ARTIST_CRITIC=0). */
  artistCritic?: boolean;
  log?: (line: string) => void;
}

/** Opening the Artist–Critic: its document, what the canvas draws of it, the load times. */
export interface ArtistCriticResult {
  source: 'template' | 'generated';
  nodes: number;
  edges: number;
  /** Node cards drawn once it is open (members of collapsed containers are not). */
  drawn: number;
  load: LoadTimes;
  timedOut: boolean;
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
      artistCritic?: ArtistCriticResult;
      elapsedMs: number;
    };

const ARTIST_CRITIC_FILE = 'artist-critic.society.json';

/** Gets the page to where one click on the file in Open… opens it; returns that click's selector. */
async function openFileSelector(page: Page, fileName: string): Promise<string> {
  await page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
  // The start page lists its templates first (the backend compiles them once, in seconds):
  // the document's load is measured after that, not beside it. Then the empty editor, as a
  // build from scratch opens it: what is measured is a document loaded into the editor, as
  // before there was a start page (opening the first document from the start page mounts the
  // editor's panels too, once).
  const start = page.getByTestId('start-page');
  if (await start.count()) {
    await start.locator('article.card').first().waitFor({ timeout: 60_000 });
    await page.getByTestId('start-scratch').click();
    await page.locator('.react-flow').waitFor();
  }
  await page.getByTestId('tb-open').click();
  const selector = `[data-testid="file-${fileName}"]`;
  await page.locator(selector).waitFor();
  return selector;
}

/** Runs the benchmark (options default to the BENCH_EDITOR_* variables); skipped with no Chromium. */
export async function benchEditor(options: EditorBenchOptions = {}): Promise<EditorBenchResult> {
  const env = process.env;
  // BENCH_EDITOR_SIZES= (empty) measures the Artist–Critic alone.
  const sizes =
    options.sizes ??
    (env.BENCH_EDITOR_SIZES ?? '100,500,1000').split(',').filter(Boolean).map(Number);
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
    const workspaceDir = join(dir, 'workspace');
    mkdirSync(workspaceDir);
    const documents = await writeDocuments(sizes, workspaceDir);
    const withArtistCritic = options.artistCritic ?? env.BENCH_EDITOR_ARTIST_CRITIC !== '0';
    const artistCritic = withArtistCritic ? artistCriticForBench() : undefined;
    if (artistCritic) {
      writeFileSync(
        join(workspaceDir, ARTIST_CRITIC_FILE),
        `${JSON.stringify(artistCritic.doc, null, 2)}\n`,
      );
    }

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
      // Both pages wait for the nodes in their framed view, not for all n.
      const inView = doc.nodes.map((node) => ({ id: node.id, ...node.position }));
      const ours: PageFigures[] = [];
      const peers: PageFigures[] = [];
      for (let trial = 0; trial < trials; trial++) {
        const runOurs = async () => {
          // A page that froze once will freeze again: one timeout stands for the size.
          if (ours.some((f) => f.timedOut)) return;
          log(`${n} nodes, trial ${trial + 1}/${trials}: editor…`);
          const figures = await inContext((context) =>
            measurePage(context, studio.url, inView, panMs, loadTimeoutMs, (page) =>
              openFileSelector(page, fileName),
            ),
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
              measurePage(context, url, inView, panMs, loadTimeoutMs, async () => {
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
    let artistCriticResult: ArtistCriticResult | undefined;
    if (artistCritic) {
      const drawn = await drawnNodeCount(artistCritic.doc);
      const loads: PageFigures[] = [];
      for (let trial = 0; trial < trials; trial++) {
        log(`Artist–Critic (${artistCritic.source}), trial ${trial + 1}/${trials}: editor…`);
        loads.push(
          await inContext((context) =>
            measurePage(context, studio.url, drawn, 0, loadTimeoutMs, (page) =>
              openFileSelector(page, ARTIST_CRITIC_FILE),
            ),
          ),
        );
      }
      const figures = medianFigures(loads);
      artistCriticResult = {
        source: artistCritic.source,
        nodes: artistCritic.doc.nodes.length,
        edges: artistCritic.doc.edges.length,
        drawn,
        load: figures.load,
        timedOut: figures.timedOut !== undefined,
      };
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
      ...(artistCriticResult ? { artistCritic: artistCriticResult } : {}),
      elapsedMs: performance.now() - started,
    };
  } finally {
    for (const step of cleanup) await step();
  }
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchEditor({ log: (line) => console.error(`[editor] ${line}`) });
  for (const line of formatEditor(result)) console.log(line);
  if (!('skipped' in result))
    console.log(`(editor took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
