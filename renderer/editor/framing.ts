/**
 * How the canvas frames a document so that its widgets (the zoom controls at the bottom left,
 * the minimap at the bottom right, the library bar along the top) never cover a node: the fit
 * leaves their corners free, on whichever side costs the drawing less room, and the minimap is
 * left out of canvases too small to spare it. A document too big to fit at a readable zoom
 * opens on its entry point instead (openingViewport).
 */
import type { FitViewOptions, Viewport } from '@xyflow/react';
import { READABLE_ZOOM } from './lod.ts';

type Padding = NonNullable<FitViewOptions['padding']>;

export interface Size {
  width: number;
  height: number;
}

/** A box in flow coordinates. */
export interface Rect extends Size {
  x: number;
  y: number;
}

interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
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
  const p = frameInsets(bounds, canvas, minimap);
  return { top: `${p.top}px`, right: `${p.right}px`, bottom: `${p.bottom}px`, left: `${p.left}px` };
}

/** framePadding's room around the drawing, in pixels. */
function frameInsets(bounds: Size, canvas: Size, minimap: boolean): Insets {
  const left = CONTROLS_WIDTH + PANEL_MARGIN + GAP / 2;
  const base = { top: GAP + LIBRARY_BAR, right: GAP, bottom: GAP, left };
  if (!minimap) return base;
  const below = { ...base, bottom: MINIMAP.height + PANEL_MARGIN + GAP / 2 };
  const beside = { ...base, right: MINIMAP.width + PANEL_MARGIN + GAP / 2 };
  return fitZoom(bounds, canvas, below) >= fitZoom(bounds, canvas, beside) ? below : beside;
}

/** The zoom at which `bounds` fills what `insets` leave of `canvas`. */
function fitZoom(bounds: Size, canvas: Size, insets: Insets): number {
  return Math.min(
    (canvas.width - insets.left - insets.right) / Math.max(1, bounds.width),
    (canvas.height - insets.top - insets.bottom) / Math.max(1, bounds.height),
  );
}

/**
 * Where a document opens when fitting it whole would draw its cards smaller than READABLE_ZOOM:
 * at that zoom, on its entry point (`entry`: the bounds of the nodes nothing flows into, the
 * run's inputs, and of the nodes they feed), with as much of the drawing after it in view as
 * fits. Along each axis an entry that fits is centred, one that does not starts the view; the
 * view never starts before the drawing does nor ends after it, so the inputs on the left edge
 * of a left-to-right graph sit at the left of the canvas. Null when the whole document fits
 * readably: then it is fitted as usual.
 */
export function openingViewport(
  all: Rect,
  entry: Rect,
  canvas: Size,
  minimap: boolean,
): Viewport | null {
  const insets = frameInsets(all, canvas, minimap);
  if (fitZoom(all, canvas, insets) >= READABLE_ZOOM) return null;
  const zoom = READABLE_ZOOM;
  const place = (start: number, size: number, at: number, span: number, view: number) => {
    if (size <= view) return start + size / 2 - view / 2;
    const wanted = span <= view ? at + span / 2 - view / 2 : at;
    return Math.min(Math.max(wanted, start), start + size - view);
  };
  const viewWidth = (canvas.width - insets.left - insets.right) / zoom;
  const viewHeight = (canvas.height - insets.top - insets.bottom) / zoom;
  const x = place(all.x, all.width, entry.x, entry.width, viewWidth);
  const y = place(all.y, all.height, entry.y, entry.height, viewHeight);
  return { x: insets.left - x * zoom, y: insets.top - y * zoom, zoom };
}
