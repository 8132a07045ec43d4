import { describe, expect, it } from 'vitest';
import { framePadding, minimapFits } from './framing.ts';

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
