/**
 * Measuring one page of the editor benchmark (bench/editor.ts) in Chromium: the load of a
 * document from one click, and the frame rate while panning at two zoom levels, through the
 * probe the page is given (bench/editor-probe.js) and CDP's Performance metrics.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { median } from './support.ts';

/** A common desktop size; the documents' grids are shaped for the canvas it leaves. */
export const WINDOW = { width: 1920, height: 1080 };
/** Time between two mouse moves while panning: a mouse reports at 125 Hz or more. */
const MOVE_EVERY_MS = 8;

/**
 * What a load waits for: every one of `n` node elements shown, or (the document's nodes, with
 * their top left corners in flow coordinates) every node in the framed view shown.
 */
export type LoadExpectation = number | ReadonlyArray<{ id: string; x: number; y: number }>;

export interface LoadTimes {
  /** Click → all N node elements in the DOM (expecting n), or the first frame ready. */
  domMs: number;
  /**
   * Click → what the load waits for (LoadExpectation): every node shown, or every node in the
   * framed view shown with its handles; then the page answered five frames without the view
   * moving.
   */
  visibleMs: number;
  /** Click → the view framed on the new document. */
  framedMs: number;
  /** Nodes in the framed view (expecting the document's nodes). */
  inView?: number;
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

/** The probe's functions (bench/editor-probe.js) as the page sees them. */
interface Probe {
  load(
    selector: string,
    expect: LoadExpectation,
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

async function busyTimes(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
 * that click's selector), times the load, then pans at two zoom levels (not when `panMs` is 0).
 */
export async function measurePage(
  context: BrowserContext,
  url: string,
  expect: LoadExpectation,
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
    probe(page, 'load', selector, expect, loadTimeoutMs),
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
  if (panMs <= 0) {
    // Only the load was asked for.
    await page.close();
    return {
      load,
      renderedNodes: counts.nodes,
      renderedEdges: counts.edges,
      atWorkingZoom: NOT_MEASURED,
      atFit: NOT_MEASURED,
      pane: counts.pane,
    };
  }
  // Let the page finish what follows a load (the editor asks the studio to validate the
  // document 500 ms after a change) before timing frames.
  await sleep(1500);
  await zoomToWorkingSize(page);
  const atWorkingZoom = await pan(page, cdp, panMs);
  // The editor has its own fit button (it keeps the minimap's corner free); the peer React
  // Flow's.
  await page.click('[data-testid="fit-view"], .react-flow__controls-fitview');
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
export function medianFigures(all: PageFigures[]): PageFigures {
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
      inView: m((f) => f.load.inView ?? Number.NaN),
    },
    renderedNodes: m((f) => f.renderedNodes),
    renderedEdges: m((f) => f.renderedEdges),
    atWorkingZoom: panMedian('atWorkingZoom'),
    atFit: panMedian('atFit'),
  };
}
