/**
 * The societies bench/editor.ts opens in the editor: if one stopped compiling, the benchmark
 * would time the editor's problem list instead of the canvas. Shape only, never timing.
 */
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { societyDocument, societyFileName } from '../bench/society-documents.ts';
import { registry } from './support/graphs.ts';

describe('benchmark societies', () => {
  it.each([8, 100, 500, 1000])('has exactly %i nodes and compiles', async (n) => {
    const doc = societyDocument(n);
    expect(doc.nodes).toHaveLength(n);
    expect(new Set(doc.nodes.map((node) => node.id)).size).toBe(n);
    const compiled = await compileGraph(doc, registry);
    expect(compiled.ok ? [] : compiled.problems).toEqual([]);
  });

  it('is mostly agents with prompts, wired into votes and one summary', () => {
    const doc = societyDocument(500);
    const count = (type: string) => doc.nodes.filter((node) => node.type === type).length;
    expect(count('agent')).toBeGreaterThan(400);
    expect(count('vote')).toBe(55);
    expect(count('summarize')).toBe(1);
    expect(doc.edges.filter((e) => e.targetHandle === 'ballots')).toHaveLength(4 * 55);
    for (const node of doc.nodes.filter((x) => x.type === 'agent')) {
      expect(node.data.prompt).toMatch(/\{\{ question \}\}/);
    }
  });

  it('lays nodes out so that no two cards overlap', () => {
    const { nodes } = societyDocument(1000);
    // The largest card on the canvas (a vote) is 220 × 143 px.
    const card = { width: 220, height: 143 };
    const overlapping = nodes.flatMap((a, i) =>
      nodes
        .slice(i + 1)
        .filter(
          (b) =>
            Math.abs(a.position.x - b.position.x) < card.width &&
            Math.abs(a.position.y - b.position.y) < card.height,
        )
        .map((b) => `${a.id} × ${b.id}`),
    );
    expect(overlapping).toEqual([]);
  });

  it('names its files as the workspace expects', () => {
    expect(societyFileName(100)).toBe('bench-100-nodes.society.json');
  });
});
