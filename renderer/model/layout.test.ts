import { readFileSync } from 'node:fs';
import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../app/schema/parse.ts';
import { artistCriticDocument } from '../../bench/editor-artist-critic.ts';
import { type FlowNode, fromDocument, isContainer, nodeSize } from './document.ts';
import { layoutGraph, needsLayout } from './layout.ts';

const template = (() => {
  const result = parseDocument(
    readFileSync(new URL('../../templates/nlsom-vqa.society.json', import.meta.url), 'utf8'),
  );
  if (!result.ok) throw new Error('template does not parse');
  return result.doc;
})();

const elk = new ELK();

function placed(nodes: FlowNode[], result: Awaited<ReturnType<typeof layoutGraph>>) {
  return nodes.map((n) => ({
    ...n,
    position: result.positions.get(n.id) ?? n.position,
    ...(result.sizes.get(n.id) ?? {}),
  }));
}

function overlap(a: { x: number; y: number; w: number; h: number }, b: typeof a): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

describe('automatic layout', () => {
  it('lays the VQA mindstorm out left to right with members inside their container', async () => {
    // Every node at the origin, as a generated plan would arrive.
    const canvas = fromDocument(template);
    const piled = canvas.nodes.map((n) => ({ ...n, position: { x: 0, y: 0 } }));
    expect(needsLayout(piled)).toBe(true);

    const result = await layoutGraph(elk, piled, canvas.edges);
    const nodes = placed(piled, result);
    expect(needsLayout(nodes)).toBe(false);
    expect(result.positions.size).toBe(nodes.length);

    // Siblings never overlap.
    const byParent = new Map<string, FlowNode[]>();
    for (const n of nodes)
      byParent.set(n.parentId ?? '', [...(byParent.get(n.parentId ?? '') ?? []), n]);
    for (const siblings of byParent.values()) {
      const boxes = siblings.map((n) => ({ id: n.id, ...n.position, ...sizeOf(n) }));
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          expect(
            overlap(
              { x: boxes[i]!.x, y: boxes[i]!.y, w: boxes[i]!.width, h: boxes[i]!.height },
              { x: boxes[j]!.x, y: boxes[j]!.y, w: boxes[j]!.width, h: boxes[j]!.height },
            ),
            `${boxes[i]!.id} overlaps ${boxes[j]!.id}`,
          ).toBe(false);
    }

    // Members sit inside their container, below its title bar.
    const byId = new Map(nodes.map((n) => [n.id, n]));
    for (const n of nodes.filter((m) => m.parentId)) {
      const parent = byId.get(n.parentId!)!;
      const size = sizeOf(n);
      expect(n.position.x).toBeGreaterThanOrEqual(0);
      expect(n.position.y).toBeGreaterThanOrEqual(40);
      expect(n.position.x + size.width).toBeLessThanOrEqual(parent.width!);
      expect(n.position.y + size.height).toBeLessThanOrEqual(parent.height!);
    }

    // Data flows rightwards between siblings.
    for (const e of canvas.edges) {
      const s = byId.get(e.source)!;
      const t = byId.get(e.target)!;
      if (s.parentId !== t.parentId || (e.data as { previousRound?: boolean })?.previousRound)
        continue;
      expect(s.position.x, `${e.source} -> ${e.target}`).toBeLessThan(t.position.x);
    }
  });

  it('arranges only the chosen nodes and leaves the rest where they were', async () => {
    const canvas = fromDocument(template);
    const tops = canvas.nodes.filter((n) => !n.parentId && !isContainer(n.type));
    const chosen = new Set(tops.slice(0, 2).map((n) => n.id));
    const result = await layoutGraph(elk, canvas.nodes, canvas.edges, chosen);
    expect([...result.positions.keys()].sort()).toEqual([...chosen].sort());
    // The chosen part keeps its top-left corner.
    const oldCorner = Math.min(...tops.slice(0, 2).map((n) => n.position.x));
    const newCorner = Math.min(...[...result.positions.values()].map((p) => p.x));
    expect(newCorner).toBe(oldCorner);
  });

  it('lays a collapsed group out as its card, its members left where they are', async () => {
    const canvas = fromDocument(artistCriticDocument());
    const piled = canvas.nodes.map((n) => ({ ...n, position: { x: 0, y: 0 } }));
    const result = await layoutGraph(elk, piled, canvas.edges);
    const inside = ['storm', 'first', 'questioner', 'answerer', 'leader', 'entry'];
    expect(inside.filter((id) => result.positions.has(id))).toEqual([]);
    // The card is a box of its own size (the document keeps the size it opens to), in the flow
    // between the input and the critics its members are wired to.
    expect(result.sizes.has('artists')).toBe(false);
    const x = (id: string) => result.positions.get(id)!.x;
    expect(x('object')).toBeLessThan(x('artists'));
    expect(x('artists')).toBeLessThan(x('critic'));
  });
});

function sizeOf(n: FlowNode): { width: number; height: number } {
  return isContainer(n.type) ? { width: n.width!, height: n.height! } : nodeSize(n);
}
