/**
 * The analytics as CSV (RFC 4180, CRLF line ends) for spreadsheets and plotting scripts: the heat
 * map as a matrix (one row per initiator, one column per receiver) and the series as a long table
 * (one row per series, x and key), which every plotting tool can pivot.
 */
import type { HeatMap, Series } from './reduce.ts';

/**
 * One CSV cell. Text a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, a tab or a
 * carriage return first: names come from models and world files) gets a leading `'`, and a cell
 * with a comma, quote or line break is quoted.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const row = (cells: Array<string | number | null | undefined>) => cells.map(csvCell).join(',');

/** The heat map: a header of receivers, then each initiator's counts. */
export function heatmapCsv(map: HeatMap): string {
  const lines = [
    row([`${map.kind}: initiator \\ receiver`, ...map.agents]),
    ...map.agents.map((agent, i) => row([agent, ...map.counts[i]!])),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** Every series point as `series,x,key,value` (a key without a value at an x has no row). */
export function seriesCsv(series: readonly Series[]): string {
  const lines = [row(['series', 'x', 'key', 'value'])];
  for (const s of series) {
    for (const point of s.points) {
      for (const key of s.keys) {
        const value = point.values[key];
        if (value !== undefined) lines.push(row([s.name, point.x, key, value]));
      }
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
