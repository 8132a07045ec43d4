/**
 * How the machine view first frames its drawing: all of it when that is still readable, else
 * its first machine (the society's own, at the top) at the least readable zoom, centred when
 * it fits across, the rest to be panned to.
 */

/** Below this zoom a box's text is too small to read. */
export const READABLE_ZOOM = 0.6;
const MARGIN = 24;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** `null`: fit everything; otherwise the viewport to start at, showing `first` from its top. */
export function readableStart(
  bounds: Rect,
  canvas: { width: number; height: number },
  first: Rect = bounds,
): { x: number; y: number; zoom: number } | null {
  const fit = Math.min(
    (canvas.width - 2 * MARGIN) / Math.max(1, bounds.width),
    (canvas.height - 2 * MARGIN) / Math.max(1, bounds.height),
  );
  if (fit >= READABLE_ZOOM) return null;
  const across = first.width * READABLE_ZOOM;
  const left = across + 2 * MARGIN <= canvas.width ? (canvas.width - across) / 2 : MARGIN;
  return {
    x: left - first.x * READABLE_ZOOM,
    y: MARGIN - first.y * READABLE_ZOOM,
    zoom: READABLE_ZOOM,
  };
}
