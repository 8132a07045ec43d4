/**
 * The heat map as a self-contained SVG image (no scripts, no outside fonts or links): a grid of
 * coloured cells with the count in each, initiators down the left, receivers along the top, a
 * title and a colour scale. Every cell carries a <title> (`alice → bob: 9`) for screen readers
 * and tooltips. `society show --export x.png` renders this same picture with sharp.
 */

import { escapeHtml } from '../eval/html.ts';
import type { HeatMap } from './reduce.ts';
import { maxCount } from './reduce.ts';
import { EMPTY_COLOUR, heatColour, lightText, scaleStops } from './scale.ts';

const CELL = 40;
const MARGIN = 16;
const TITLE = 28;
/** Labels longer than this are clipped (the full name stays in the cell's title). */
const LABEL_MAX = 24;
/** Roughly how wide one character of the 12 px label font is. */
const CHAR = 7;
const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';

const clip = (text: string) =>
  text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text;

/** The SVG document of a heat map (an empty map draws its title and a note, not a grid). */
export function heatmapSvg(map: HeatMap, title?: string): string {
  const heading =
    title ?? `${map.kind}: initiator (rows) → receiver (columns), ${map.total} in all`;
  const n = map.agents.length;
  const max = maxCount(map);
  const labelWidth = Math.max(48, Math.min(LABEL_MAX, longest(map.agents)) * CHAR + 12);
  // Column labels stand at 45°: they take about as much height as their length allows.
  const topLabels = Math.round(labelWidth * 0.72) + 8;
  const gridX = MARGIN + labelWidth;
  const gridY = MARGIN + TITLE + topLabels;
  const gridSize = n * CELL;
  const legendY = gridY + gridSize + 24;
  const width = Math.max(
    gridX + gridSize + MARGIN + topLabels / 2,
    heading.length * 8.5 + 2 * MARGIN,
    320,
  );
  const height = legendY + 44;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(width)}" height="${height}" viewBox="0 0 ${Math.ceil(width)} ${height}" role="img" aria-labelledby="heatmap-title" font-family="${FONT}">`,
    `<title id="heatmap-title">${escapeHtml(heading)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${MARGIN}" y="${MARGIN + 14}" font-size="14" font-weight="bold" fill="#1d2330">${escapeHtml(heading)}</text>`,
  );
  if (n === 0) {
    parts.push(
      `<text x="${MARGIN}" y="${MARGIN + TITLE + 16}" font-size="12" fill="#5b6475">no interactions</text>`,
      '</svg>',
    );
    return `${parts.join('\n')}\n`;
  }
  map.agents.forEach((agent, i) => {
    const y = gridY + i * CELL + CELL / 2 + 4;
    parts.push(
      `<text x="${gridX - 8}" y="${y}" font-size="12" text-anchor="end" fill="#1d2330">${escapeHtml(clip(agent))}</text>`,
    );
    const x = gridX + i * CELL + CELL / 2;
    parts.push(
      `<text x="${x}" y="${gridY - 8}" font-size="12" fill="#1d2330" transform="rotate(-45 ${x} ${gridY - 8})">${escapeHtml(clip(agent))}</text>`,
    );
  });
  map.counts.forEach((row, i) => {
    row.forEach((count, j) => {
      const x = gridX + j * CELL;
      const y = gridY + i * CELL;
      const name = `${map.agents[i]} → ${map.agents[j]}: ${count}`;
      parts.push(
        `<g><title>${escapeHtml(name)}</title><rect x="${x}" y="${y}" width="${CELL}" height="${CELL}" fill="${heatColour(count, max)}" stroke="#ffffff" stroke-width="1"/>` +
          (count > 0
            ? `<text x="${x + CELL / 2}" y="${y + CELL / 2 + 4}" font-size="12" text-anchor="middle" fill="${lightText(count, max) ? '#ffffff' : '#1d2330'}">${count}</text>`
            : '') +
          '</g>',
      );
    });
  });
  parts.push(...legend(gridX, legendY, Math.max(120, Math.min(gridSize, 240)), max), '</svg>');
  return `${parts.join('\n')}\n`;
}

/** The colour scale from 1 to the largest count, and the swatch for none. */
function legend(x: number, y: number, width: number, max: number): string[] {
  const stops = scaleStops();
  const gradient = stops
    .map((c, i) => `<stop offset="${(i / (stops.length - 1)).toFixed(2)}" stop-color="${c}"/>`)
    .join('');
  const none = [
    `<rect x="${x}" y="${y}" width="14" height="12" fill="${EMPTY_COLOUR}" stroke="#c9ced8"/>`,
    `<text x="${x + 18}" y="${y + 10}" font-size="11" fill="#5b6475">none</text>`,
  ];
  // Nobody has interacted yet: there is no scale to show.
  if (max <= 0) return none;
  return [
    `<defs><linearGradient id="heatmap-scale" x1="0" x2="1" y1="0" y2="0">${gradient}</linearGradient></defs>`,
    ...none,
    `<rect x="${x + 60}" y="${y}" width="${width}" height="12" fill="url(#heatmap-scale)"/>`,
    `<text x="${x + 60}" y="${y + 26}" font-size="11" fill="#5b6475">1</text>`,
    `<text x="${x + 60 + width}" y="${y + 26}" font-size="11" text-anchor="end" fill="#5b6475">${max}</text>`,
  ];
}

function longest(names: readonly string[]): number {
  return Math.max(0, ...names.map((n) => n.length));
}
