import { describe, expect, it } from 'vitest';
import { framePadding, minimapFits, openingViewport } from './framing.ts';
import { READABLE_ZOOM } from './lod.ts';

describe('framing the canvas around its corner widgets', () => {
  const canvas = { width: 900, height: 500 };

  it('keeps the minimap corner free below a wide drawing and beside a tall one', () => {
    const wide = framePadding({ width: 1600, height: 300 }, canvas, true) as Record<string, string>;
    expect(Number.parseInt(wide.bottom!, 10)).toBeGreaterThan(112);
    expect(Number.parseInt(wide.right!, 10)).toBeLessThan(40);
    const tall = framePadding({ width: 300, height: 1600 }, canvas, true) as Record<string, string>;
    expect(Number.parseInt(tall.right!, 10)).toBeGreaterThan(168);
    expect(Number.parseInt(tall.bottom!, 10)).toBeLessThan(40);
  });

  it('always keeps the zoom controls column free, and only that without a minimap', () => {
    const p = framePadding({ width: 500, height: 500 }, canvas, false) as Record<string, string>;
    expect(Number.parseInt(p.left!, 10)).toBeGreaterThan(40);
    expect(Number.parseInt(p.bottom!, 10)).toBeLessThan(40);
  });

  it('leaves the minimap out of a short canvas', () => {
    expect(minimapFits({ width: 860, height: 480 })).toBe(true);
    expect(minimapFits({ width: 740, height: 370 })).toBe(false);
  });
});

describe('where a document opens', () => {
  const canvas = { width: 740, height: 400 };

  it('fits a small document whole', () => {
    const all = { x: 0, y: 0, width: 700, height: 200 };
    expect(openingViewport(all, all, canvas, false)).toBeNull();
  });

  it('opens a wide one at a readable zoom on its inputs, at the left edge of the canvas', () => {
    const all = { x: 100, y: 0, width: 2000, height: 300 };
    const inputs = { x: 100, y: 100, width: 220, height: 200 };
    const view = openingViewport(all, inputs, canvas, false)!;
    expect(view.zoom).toBe(READABLE_ZOOM);
    // The inputs' left edge lands just right of the zoom controls, their middle in view.
    const left = view.x + inputs.x * view.zoom;
    expect(left).toBeGreaterThan(40);
    expect(left).toBeLessThan(80);
    const middle = view.y + (inputs.y + inputs.height / 2) * view.zoom;
    expect(middle).toBeGreaterThan(0);
    expect(middle).toBeLessThan(canvas.height);
  });

  it('never shows empty room before the drawing starts, whatever the entry', () => {
    const all = { x: 0, y: 0, width: 3000, height: 3000 };
    const inputs = { x: 0, y: 0, width: 100, height: 100 };
    const view = openingViewport(all, inputs, canvas, true)!;
    expect(view.x).toBeLessThanOrEqual(60);
    expect(view.y).toBeLessThanOrEqual(60);
    expect(view.x).toBeGreaterThan(0);
    expect(view.y).toBeGreaterThan(0);
  });
});
