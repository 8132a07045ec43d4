/**
 * The topology's drawing: a line per pair that sees each other, the dots on a circle inside the
 * square, and nothing drawn when the topology does not fit its members.
 */
import { describe, expect, it } from 'vitest';
import { MOST_DRAWN, topologyDescription, topologyDrawing } from './drawing.ts';
import type { TopologyData } from './topology.ts';

const FIVE = ['a', 'b', 'c', 'd', 'e'];
const of = (
  topology: TopologyData['topology'],
  more: Partial<TopologyData> = {},
): TopologyData => ({
  topology,
  k: 2,
  seed: 1,
  adjacency: {},
  ...more,
});

describe('a topology drawing', () => {
  it('draws one line per pair that sees each other', () => {
    const lines = (data: TopologyData) => topologyDrawing(data, FIVE, 22, 3)?.lines.length;
    expect(lines(of('full'))).toBe(10);
    expect(lines(of('ring'))).toBe(5);
    expect(lines(of('star'))).toBe(4);
    expect(lines(of('k-regular', { k: 2, seed: 7 }))).toBe(5);
    // One-way is still a line: a sees b, nobody else sees anyone.
    expect(lines(of('adjacency', { adjacency: { a: ['b'] } }))).toBe(1);
    const ring = topologyDrawing(of('ring'), FIVE, 22, 3)!;
    expect(ring.lines.map((l) => l.key)).toEqual(['a|b', 'a|e', 'b|c', 'c|d', 'd|e']);
  });

  it('puts the dots on a circle inside the square, the first at the top', () => {
    const { dots } = topologyDrawing(of('full'), FIVE, 140, 12)!;
    expect(dots[0]).toMatchObject({ name: 'a', x: 70, y: 12 });
    for (const { x, y } of dots) {
      expect(Math.hypot(x - 70, y - 70)).toBeCloseTo(58);
      expect(Math.min(x, y)).toBeGreaterThanOrEqual(12);
      expect(Math.max(x, y)).toBeLessThanOrEqual(128);
    }
  });

  it('draws nothing for a topology that does not fit, or too many members', () => {
    expect(topologyDrawing(of('k-regular', { k: 3 }), FIVE, 22, 3)).toBeUndefined();
    expect(
      topologyDrawing(of('adjacency', { adjacency: { z: ['a'] } }), FIVE, 22, 3),
    ).toBeUndefined();
    const many = Array.from({ length: MOST_DRAWN + 1 }, (_, i) => `m${i}`);
    expect(topologyDrawing(of('ring'), many, 22, 3)).toBeUndefined();
    expect(topologyDrawing(of('ring'), [], 22, 3)).toBeUndefined();
  });

  it('says who sees whom in a sentence', () => {
    expect(topologyDescription(of('ring'))).toBe('ring: each member sees its two neighbours');
    expect(topologyDescription(of('k-regular', { k: 3, seed: 4 }))).toBe(
      '3-regular (seed 4): each member sees 3 others, drawn at random',
    );
  });
});
