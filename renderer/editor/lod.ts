/**
 * The canvas's level of detail: which of a card's texts are drawn at a zoom, so that no text
 * on screen is ever smaller than 11 px. The canvas carries the band as `data-lod` (lod.css says
 * what each band shows); it changes only when the zoom crosses a band's edge, so cards do not
 * re-render while the view pans or zooms within a band.
 *
 * - full (zoom ≥ 1): everything; the cards' smallest text is 11 px.
 * - titles (0.6–1): each card shows its title large (19 px, so ≥ 11.4 px on screen) over the
 *   card; port names, kinds, summaries and badges are hidden; the handles stay, to wire.
 * - far (0.3–0.6): titles larger still (37 px, ≥ 11.1 px on screen); each card is a box of its
 *   size with no port rows and no handles in the page, the edges one drawing (LodEdges.tsx).
 * - shapes (below 0.3): no text at all, the boxes and edges alone.
 *
 * In titles and far, a card with a `data-lod-value` attribute (a few words of what it holds,
 * its latest output say) shows them along its bottom edge at the title's size.
 */
export type LodBand = 'full' | 'titles' | 'far' | 'shapes';

/** The smallest size text may have on screen, in CSS pixels. */
export const MIN_TEXT_PX = 11;

/** The zoom a document too big to fit readably opens at (framing.ts, openingViewport). */
export const READABLE_ZOOM = 0.6;

/** Each band's lowest zoom, largest first. */
const BANDS: ReadonlyArray<readonly [LodBand, number]> = [
  ['full', 1],
  ['titles', READABLE_ZOOM],
  ['far', 0.3],
];

/** The band a zoom falls in. */
export function lodBand(zoom: number): LodBand {
  for (const [band, from] of BANDS) if (zoom >= from) return band;
  return 'shapes';
}
