import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CARD, pictureOf } from './picture.ts';

const groups: Record<string, string> = { input: 'Flow', agent: 'Minds', mindstorm: 'Structure' };
const groupOf = (type: string) => groups[type];

describe('a template picture', () => {
  it('draws one box per top-level node, a container around its members', () => {
    const doc = JSON.parse(
      readFileSync(new URL('../../templates/nlsom-vqa.society.json', import.meta.url), 'utf8'),
    );
    const picture = pictureOf(doc, groupOf);
    const top = doc.nodes.filter((n: { parentId?: string }) => !n.parentId);
    expect(picture.boxes.map((b) => b.id)).toEqual(top.map((n: { id: string }) => n.id));
    const storm = picture.boxes.find((b) => b.id === 'storm');
    // Its members reach x=540 and y=200 inside it: the frame holds them.
    expect(storm).toMatchObject({ container: true, group: 'Structure' });
    expect(storm?.width).toBeGreaterThanOrEqual(540 + CARD.width);
    expect(storm?.height).toBeGreaterThanOrEqual(200 + CARD.height);
    // Its members are drawn inside it, at their places.
    expect(picture.inner.map((b) => b.id)).toEqual([
      'describe',
      'organizer',
      'member',
      'summary',
      'leader',
    ]);
    expect(picture.inner.find((b) => b.id === 'leader')).toMatchObject({
      x: 260 + 540,
      y: -60 + 200,
    });
    expect(picture.boxes.find((b) => b.id === 'question')).toMatchObject({
      x: 0,
      y: 0,
      group: 'Flow',
      container: false,
    });
    // Every box is inside the view.
    const { viewBox: v } = picture;
    for (const b of picture.boxes) {
      expect(b.x).toBeGreaterThanOrEqual(v.x);
      expect(b.y + b.height).toBeLessThanOrEqual(v.y + v.height);
    }
  });

  it('draws a wire into a container as a line to the container, once per pair', () => {
    const picture = pictureOf(
      {
        nodes: [
          { id: 'q', type: 'input', position: { x: 0, y: 0 } },
          { id: 'loop', type: 'mindstorm', position: { x: 300, y: 0 } },
          { id: 'a', type: 'agent', position: { x: 20, y: 40 }, parentId: 'loop' },
          { id: 'b', type: 'agent', position: { x: 240, y: 40 }, parentId: 'loop' },
          { id: 'x', type: 'mystery', position: { x: 900, y: 0 } },
        ],
        edges: [
          { source: 'q', target: 'a' },
          { source: 'q', target: 'b' },
          { source: 'a', target: 'b' },
          { source: 'b', target: 'x' },
          { source: 'gone', target: 'x' },
        ],
      },
      groupOf,
    );
    expect(picture.lines.map((l) => `${l.from}>${l.to}`)).toEqual(['q>loop', 'loop>x']);
    expect(picture.lines[0]).toMatchObject({ x1: CARD.width, y1: CARD.height / 2, x2: 300 });
    expect(picture.boxes.find((b) => b.id === 'x')?.group).toBe('unknown');
  });

  it('draws nothing for an empty document', () => {
    expect(pictureOf({ nodes: [], edges: [] }, groupOf).boxes).toEqual([]);
  });
});
