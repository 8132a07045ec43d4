/**
 * The heat map's colour and shade scales, shared by the SVG export, the terminal table and the
 * editor, so a count looks the same wherever it is shown. Counts are scaled against the map's
 * largest count; zero has its own look (no colour, a dot), so "never" stands apart from "rarely".
 */

/** Light to dark blue (ColorBrewer's sequential Blues): readable in print and for most colour vision. */
const STOPS = ['#deebf7', '#9ecae1', '#6baed6', '#2171b5', '#08306b'] as const;

/** The colour of an empty cell. */
export const EMPTY_COLOUR = '#f4f4f6';

/** The terminal shades for a quarter of the largest count and up, lightest first. */
export const SHADES = ['░', '▒', '▓', '█'] as const;

/** A cell's colour: `EMPTY_COLOUR` for 0, else along the scale by count / max. */
export function heatColour(count: number, max: number): string {
  if (count <= 0 || max <= 0) return EMPTY_COLOUR;
  const t = Math.min(1, count / max);
  const at = t * (STOPS.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(STOPS.length - 1, lo + 1);
  return mix(STOPS[lo]!, STOPS[hi]!, at - lo);
}

/** Whether a cell's label should be light (on the darker half of the scale). */
export function lightText(count: number, max: number): boolean {
  return max > 0 && count / max > 0.5;
}

/** The scale's colours from lightest to darkest, for a legend's gradient. */
export function scaleStops(): readonly string[] {
  return STOPS;
}

/** A cell's shade in the terminal: `·` for 0, then one of SHADES per quarter of the max. */
export function shade(count: number, max: number): string {
  if (count <= 0 || max <= 0) return '·';
  const quarter = Math.min(3, Math.ceil((count / max) * 4) - 1);
  return SHADES[Math.max(0, quarter)]!;
}

function mix(a: string, b: string, t: number): string {
  const channel = (hex: string, i: number) => Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16);
  let out = '#';
  for (let i = 0; i < 3; i++) {
    const value = Math.round(channel(a, i) + (channel(b, i) - channel(a, i)) * t);
    out += value.toString(16).padStart(2, '0');
  }
  return out;
}
