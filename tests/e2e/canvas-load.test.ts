/**
 * Opening a big society: the canvas builds only the cards in view, from the first render (each
 * card's size and ports are estimated until it is measured), frames the document at once, and
 * the edges meet their ports: an edge into a card not yet drawn ends where that card's port
 * turns out to be once it scrolls into view, and zoomed in every edge starts and ends on its
 * handles. Fit view frames every node, drawn or not.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../app/schema/document.ts';
import { societyDocument, societyFileName } from '../../bench/society-documents.ts';
import {
  HAVE_CHROMIUM,
  settledView,
  studioForSuite,
  visibleBox,
  zoomToFullDetail,
} from './support.ts';

/** What the page-side functions use of the DOM (the tests are typed for Node, without it). */
interface PageNode {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): Record<'left' | 'top' | 'right' | 'bottom' | 'width' | 'height', number>;
  querySelector(selector: string): PageNode | null;
  style: { visibility: string };
  getScreenCTM(): Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f', number> | null;
  getPointAtLength(length: number): { x: number; y: number };
  getTotalLength(): number;
  matches?(selector: string): boolean;
  querySelectorAll(selector: string): Iterable<PageNode>;
}
interface PageGlobals {
  document: {
    body: unknown;
    querySelector(selector: string): PageNode | null;
    querySelectorAll(selector: string): ArrayLike<PageNode> & Iterable<PageNode>;
    elementFromPoint(x: number, y: number): unknown;
  };
  MutationObserver: new (
    callback: (records: Array<{ addedNodes: Iterable<PageNode> }>) => void,
  ) => { observe(target: unknown, options: object): void };
  /** The card elements put in the page (whose ids start with cardPrefix) since the last reset. */
  built: Set<unknown>;
  cardPrefix: string;
}

/** Each drawn edge's end points in flow coordinates (React Flow's path starts and ends there). */
function edgeEnds(page: Page): Promise<Record<string, number[]>> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const ends: Record<string, number[]> = {};
    for (const g of document.querySelectorAll('.react-flow__edge')) {
      const d = g.querySelector('.react-flow__edge-path')?.getAttribute('d') ?? '';
      const numbers = (d.match(/-?[\d.]+(e-?\d+)?/g) ?? []).map(Number);
      const id = g.getAttribute('data-id');
      if (id && numbers.length >= 4) ends[id] = [...numbers.slice(0, 2), ...numbers.slice(-2)];
    }
    return ends;
  });
}

/** Pans the view by dragging the empty pane, in steps that keep the mouse on the pane. */
async function panBy(page: Page, dx: number, dy: number): Promise<void> {
  const pane = await visibleBox(page.locator('.react-flow__pane'));
  const step = { x: pane.width * 0.4, y: pane.height * 0.4 };
  while (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
    const mx = Math.max(-step.x, Math.min(step.x, dx));
    const my = Math.max(-step.y, Math.min(step.y, dy));
    // Content moves with the mouse: to see what lies below, drag up.
    const spot = await page.evaluate(
      ([ax, ay]) => {
        const { document } = globalThis as unknown as PageGlobals;
        const el = document.querySelector('.react-flow__pane')!;
        const r = el.getBoundingClientRect();
        // Nearest the middle, shifted against the drag, so the mouse stays over the pane.
        const cx = r.left + r.width / 2 + ax! / 2;
        const cy = r.top + r.height / 2 + ay! / 2;
        let best: { x: number; y: number; d: number } | undefined;
        for (let y = r.top + 8; y < r.bottom - 8; y += 6) {
          for (let x = r.left + 8; x < r.right - 8; x += 6) {
            const d = (x - cx) ** 2 + (y - cy) ** 2;
            if ((!best || d < best.d) && document.elementFromPoint(x, y) === el) {
              best = { x, y, d };
            }
          }
        }
        if (best) return best;
        throw new Error('no empty spot on the pane');
      },
      [mx, my],
    );
    await page.mouse.move(spot.x, spot.y);
    await page.mouse.down();
    await page.mouse.move(spot.x - mx, spot.y - my, { steps: 6 });
    await page.mouse.up();
    dx -= mx;
    dy -= my;
  }
}

/** The document with `prefix` before every node id, in its edges too. */
function renamed(doc: GraphDocument, prefix: string): GraphDocument {
  const id = (node: string) => `${prefix}${node}`;
  return {
    ...doc,
    nodes: doc.nodes.map((node) => ({ ...node, id: id(node.id) })),
    edges: doc.edges.map((e) => ({
      ...e,
      id: id(e.id).replace('->', `->${prefix}`),
      source: id(e.source),
      target: id(e.target),
    })),
  };
}

describe.skipIf(!HAVE_CHROMIUM)('opening a big society', () => {
  const studio = studioForSuite();

  it('builds only the cards in view, and its edges meet their ports', async () => {
    const s = studio();
    const { page } = s;
    const n = 600;
    // A desktop window, where this society fits whole above React Flow's least zoom.
    await page.setViewportSize({ width: 1920, height: 1080 });
    const doc = societyDocument(n);
    writeFileSync(path.join(s.workspace, societyFileName(n)), JSON.stringify(doc));
    // The most cards ever in the page while the document opens.
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      const { document } = w;
      w.built = new Set();
      w.cardPrefix = '';
      // Every card element put in the page counts, even one taken out again in the same task.
      new w.MutationObserver((records) => {
        // (An empty prefix in [data-id^=""] would match nothing.)
        const selector = w.cardPrefix
          ? `.react-flow__node[data-id^="${w.cardPrefix}"]`
          : '.react-flow__node';
        for (const record of records) {
          for (const added of record.addedNodes) {
            if (typeof added.matches !== 'function') continue;
            if (added.matches(selector)) w.built.add(added);
            for (const card of added.querySelectorAll(selector)) w.built.add(card);
          }
        }
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByTestId('tb-open').click();
    await page.getByTestId(`file-${societyFileName(n)}`).click();
    // It opens on its inputs and the agents they feed, from the top left.
    await page.getByTestId('node-panel0_proposer0').waitFor({ timeout: 30_000 });
    const view = await settledView(page);
    const canvas = page.getByTestId('canvas');
    const pane = await visibleBox(page.locator('.react-flow__pane'));
    expect(await canvas.getAttribute('data-lod')).toBe('titles');

    // Only the cards in view were ever put in the page, each shown (measured) with its handles.
    const cards = page.locator('.react-flow__node');
    const inView = doc.nodes.filter((node) => {
      const x = view.x + node.position.x * view.zoom;
      const y = view.y + node.position.y * view.zoom;
      return x >= 0 && y >= 0 && x < pane.width && y < pane.height;
    });
    expect(inView.length).toBeGreaterThan(5);
    const most = await page.evaluate(() => (globalThis as unknown as PageGlobals).built.size);
    expect(most).toBeGreaterThanOrEqual(inView.length);
    expect(most).toBeLessThan(n / 5);
    for (const node of inView) {
      const card = page.locator(`.react-flow__node[data-id="${node.id}"]`);
      expect(await card.evaluate((el) => (el as unknown as PageNode).style.visibility)).not.toBe(
        'hidden',
      );
      expect(await card.locator('.react-flow__handle').count()).toBeGreaterThan(0);
    }

    // Edges into the view from cards not drawn yet (the inputs, halfway down on the left) leave
    // those cards where their ports turn out to be once they scroll into view and are measured.
    const before = await edgeEnds(page);
    const drawn = async () =>
      new Set(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))));
    const drawnBefore = await drawn();
    const question = doc.nodes.find((node) => node.id === 'question')!;
    await panBy(page, 0, view.y + question.position.y * view.zoom - pane.height / 2);
    await page.getByTestId('node-question').waitFor();
    await settledView(page);
    const after = await edgeEnds(page);
    const drawnAfter = await drawn();
    let compared = 0;
    for (const e of doc.edges) {
      const [x0, y0, x1, y1] = before[e.id] ?? [];
      const now = after[e.id];
      if (!now) continue;
      const ends: Array<[string, number | undefined, number | undefined, number, number]> = [
        [e.source, x0, y0, now[0]!, now[1]!],
        [e.target, x1, y1, now[2]!, now[3]!],
      ];
      for (const [node, x, y, nx, ny] of ends) {
        if (x === undefined || y === undefined) continue;
        if (drawnBefore.has(node) || !drawnAfter.has(node)) continue;
        expect(Math.abs(nx - x), `${e.id} at ${node}`).toBeLessThanOrEqual(1);
        expect(Math.abs(ny - y), `${e.id} at ${node}`).toBeLessThanOrEqual(1);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);

    // Fit view frames every node, drawn before or not.
    await page.getByTestId('fit-view').click();
    await settledView(page);
    await expect.poll(() => cards.count()).toBe(n);
    const all = await cards.evaluateAll((els) => {
      const boxes = els.map((e) => e.getBoundingClientRect());
      return {
        left: Math.min(...boxes.map((b) => b.left)),
        top: Math.min(...boxes.map((b) => b.top)),
        right: Math.max(...boxes.map((b) => b.right)),
        bottom: Math.max(...boxes.map((b) => b.bottom)),
      };
    });
    const frame = await visibleBox(page.locator('.react-flow__pane'));
    expect(all.left).toBeGreaterThanOrEqual(frame.x);
    expect(all.top).toBeGreaterThanOrEqual(frame.y);
    expect(all.right).toBeLessThanOrEqual(frame.x + frame.width);
    expect(all.bottom).toBeLessThanOrEqual(frame.y + frame.height);

    // Opened from this zoomed-out view, another big document is not first drawn as a box per
    // node at this zoom: its view is set as it arrives, and only the cards in it are built.
    const other = renamed(doc, 'b_');
    writeFileSync(path.join(s.workspace, 'other.society.json'), JSON.stringify(other));
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      w.built = new Set();
      w.cardPrefix = 'b_';
    });
    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-other.society.json').click();
    const confirm = page.getByTestId('confirm-ok');
    const opened = page.getByTestId('node-b_panel0_proposer0');
    await opened.or(confirm).first().waitFor();
    if (await confirm.count()) await confirm.click();
    await opened.waitFor();
    await settledView(page);
    expect(await canvas.getAttribute('data-lod')).toBe('titles');
    const mostOther = await page.evaluate(() => (globalThis as unknown as PageGlobals).built.size);
    expect(mostOther).toBeGreaterThan(5);
    expect(mostOther).toBeLessThan(n / 5);
    expect(await cards.count()).toBeLessThan(n / 5);

    // Zoomed in on a panel, every edge starts on its source's handle and ends on its target's.
    const vote = page.getByTestId('node-b_panel0_vote');
    await zoomToFullDetail(page, vote);
    await settledView(page);
    const misses = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      const out: string[] = [];
      let checked = 0;
      for (const g of document.querySelectorAll('.react-flow__edge')) {
        const p = g.querySelector('.react-flow__edge-path');
        const id = g.getAttribute('data-id') ?? '';
        const [, source, sourceHandle, target, targetHandle] =
          id.match(/^(.+)\.(.+)->(.+)\.(.+)$/) ?? [];
        const handle = (node?: string, name?: string, side?: string) =>
          document.querySelector(`[data-testid="handle-${node}-${side}-${name}"]`);
        const from = handle(source, sourceHandle, 'out');
        const to = handle(target, targetHandle, 'in');
        if (!p || !from || !to) continue;
        const m = p.getScreenCTM();
        if (!m) continue;
        const at = (l: number) => {
          const q = p.getPointAtLength(l);
          return { x: m.a * q.x + m.c * q.y + m.e, y: m.b * q.x + m.d * q.y + m.f };
        };
        const start = at(0);
        const end = at(p.getTotalLength());
        const a = from.getBoundingClientRect();
        const b = to.getBoundingClientRect();
        // React Flow attaches an edge to the outer middle of a side handle.
        const near = (pt: { x: number; y: number }, x: number, y: number) =>
          Math.abs(pt.x - x) <= 1.5 && Math.abs(pt.y - y) <= 1.5;
        if (!near(start, a.right, a.top + a.height / 2)) out.push(`${id} starts off its handle`);
        if (!near(end, b.left, b.top + b.height / 2)) out.push(`${id} ends off its handle`);
        checked++;
      }
      return { out, checked };
    });
    expect(misses.checked).toBeGreaterThan(3);
    expect(misses.out).toEqual([]);
  }, 90_000);
});
