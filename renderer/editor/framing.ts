/**
 * How the canvas frames a document so that its widgets (the zoom controls at the bottom left,
 * the minimap at the bottom right, the library bar along the top) never cover a node: the fit
 * leaves their corners free, on whichever side costs the drawing less room, and the minimap is
 * left out of canvases too small to spare it.
 */
import type { FitViewOptions } from '@xyflow/react';

type Padding = NonNullable<FitViewOptions['padding']>;

export interface Size {
  width: number;
  height: number;
}

/** The minimap's size on screen, and the margin React Flow's panels keep from the edge. */
export const MINIMAP: Size = { width: 168, height: 112 };
const PANEL_MARGIN = 15;
/** The width of the column of zoom controls at the bottom left. */
const CONTROLS_WIDTH = 28;
/** Free space kept around the drawing. */
const GAP = 24;
/** The height of the library bar (breadcrumbs and sub-society actions) along the top. */
const LIBRARY_BAR = 32;

/** Whether a canvas this big has room for the minimap beside a readable drawing. */
export function minimapFits(canvas: Size): boolean {
  return canvas.height >= 460 && canvas.width >= 560;
}

/**
 * Padding (in pixels) for fitting `bounds` into `canvas` with the controls' column and, when
 * shown, the minimap's corner kept clear: the minimap's height is reserved along the bottom or
 * its width along the right, whichever leaves the larger zoom.
 */
export function framePadding(bounds: Size, canvas: Size, minimap: boolean): Padding {
  const left = CONTROLS_WIDTH + PANEL_MARGIN + GAP / 2;
  const base = { top: GAP + LIBRARY_BAR, right: GAP, bottom: GAP, left };
  const px = (p: typeof base): Padding => ({
    top: `${p.top}px`,
    right: `${p.right}px`,
    bottom: `${p.bottom}px`,
    left: `${p.left}px`,
  });
  if (!minimap) return px(base);
  const below = { ...base, bottom: MINIMAP.height + PANEL_MARGIN + GAP / 2 };
  const beside = { ...base, right: MINIMAP.width + PANEL_MARGIN + GAP / 2 };
  const zoom = (p: typeof base) =>
    Math.min(
      (canvas.width - p.left - p.right) / Math.max(1, bounds.width),
      (canvas.height - p.top - p.bottom) / Math.max(1, bounds.height),
    );
  return px(zoom(below) >= zoom(beside) ? below : beside);
}
