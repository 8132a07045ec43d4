/**
 * `society show RUN --heatmap / --series / --export FILE / --export-series FILE`: a run's
 * analytics (app/analytics) as terminal text and as files. The export's format is its file's
 * extension, checked before the store is opened, so a typo costs one line and exit code 2.
 */
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { heatmapCsv, seriesCsv } from '../analytics/csv.ts';
import { type RunAnalytics, runAnalytics } from '../analytics/reduce.ts';
import { heatmapSvg } from '../analytics/svg.ts';
import { formatHeatmap, formatSeries } from '../analytics/text.ts';
import { UsageError } from './errors.ts';

export interface AnalyticsFlags {
  heatmap?: boolean;
  series?: boolean;
  /** The kind of interaction the heat map counts (default: chat). */
  kind?: string;
  export?: string;
  exportSeries?: string;
}

const HEATMAP_FORMATS = ['.csv', '.svg', '.png'] as const;
const SERIES_FORMATS = ['.csv'] as const;

/** True when the flags ask for analytics rather than the transcript. */
export function wantsAnalytics(flags: AnalyticsFlags): boolean {
  return Boolean(flags.heatmap || flags.series || flags.export || flags.exportSeries);
}

/** Refuses an export whose extension names no format, before anything is read. */
export function checkExportFlags(flags: AnalyticsFlags): void {
  formatOf(flags.export, HEATMAP_FORMATS, '--export', 'heat map');
  formatOf(flags.exportSeries, SERIES_FORMATS, '--export-series', 'series');
  if (flags.kind !== undefined && !flags.kind.trim())
    throw new UsageError('--kind needs an interaction kind, e.g. --kind chat');
}

function formatOf<F extends string>(
  file: string | undefined,
  formats: readonly F[],
  flag: string,
  what: string,
): F | undefined {
  if (file === undefined) return undefined;
  const ext = extname(file).toLowerCase();
  if (!(formats as readonly string[]).includes(ext))
    throw new UsageError(
      `${flag} ${file}: the extension picks the ${what} format: ${formats.join(', ')}`,
    );
  return ext as F;
}

/** Prints and writes what the flags ask for; says plainly when the run has nothing to show. */
export async function showAnalytics(
  runId: string,
  events: ReadonlyArray<{ type: string }>,
  flags: AnalyticsFlags & { json?: boolean },
): Promise<void> {
  const analytics = runAnalytics(events, flags.kind ? { kind: flags.kind.trim() } : {});
  const { heatmap, kinds, series } = analytics;
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ runId, ...analytics })}\n`);
  } else {
    if (flags.heatmap) process.stdout.write(formatHeatmap(heatmap, kinds));
    if (flags.series) process.stdout.write(formatSeries(series));
  }
  const heatFormat = formatOf(flags.export, HEATMAP_FORMATS, '--export', 'heat map');
  if (flags.export && heatFormat) {
    if (heatmap.total === 0 && heatmap.agents.length === 0) {
      process.stderr.write(`${flags.export}: not written: no ${describeKind(analytics)}\n`);
    } else {
      await write(flags.export, await heatmapFile(analytics, heatFormat));
      process.stderr.write(
        `wrote ${flags.export} (${heatmap.kind} heat map: ${heatmap.agents.length} agents, ${heatmap.total} interactions)\n`,
      );
    }
  }
  if (flags.exportSeries) {
    if (series.length === 0) {
      process.stderr.write(`${flags.exportSeries}: not written: no series in this run\n`);
    } else {
      await write(flags.exportSeries, seriesCsv(series));
      const points = series.reduce((n, s) => n + s.points.length, 0);
      process.stderr.write(
        `wrote ${flags.exportSeries} (${series.length} series, ${points} points: ${series.map((s) => s.name).join(', ')})\n`,
      );
    }
  }
}

/** One line for the transcript view: what analytics the run has and how to see them. */
export function analyticsHint(runId: string, events: ReadonlyArray<{ type: string }>): string {
  const { heatmap, kinds, series } = runAnalytics(events);
  const parts: string[] = [];
  const mapped = kinds.length > 0 || heatmap.agents.length > 0;
  if (mapped)
    parts.push(
      `${heatmap.total} ${heatmap.kind} interactions among ${heatmap.agents.length} agents`,
    );
  if (series.length) parts.push(`series ${series.map((s) => s.name).join(', ')}`);
  if (parts.length === 0) return '';
  const flags = [mapped ? '--heatmap' : '', series.length ? '--series' : '']
    .filter(Boolean)
    .join(' ');
  return `analytics: ${parts.join('; ')} (society show ${runId} ${flags})\n`;
}

function describeKind({ heatmap, kinds }: RunAnalytics): string {
  return kinds.length === 0
    ? 'interactions in this run'
    : `"${heatmap.kind}" interactions in this run (it has: ${kinds.join(', ')})`;
}

async function heatmapFile(
  { heatmap }: RunAnalytics,
  format: (typeof HEATMAP_FORMATS)[number],
): Promise<string | Buffer> {
  switch (format) {
    case '.csv':
      return heatmapCsv(heatmap);
    case '.svg':
      return heatmapSvg(heatmap);
    case '.png': {
      // sharp is large: loaded only when a picture is asked for. The picture is our own drawing
      // of the run's nodes, not an image from a document, so no pixel budget applies.
      const { default: sharp } = await import('sharp');
      return sharp(Buffer.from(heatmapSvg(heatmap)), { density: 144 })
        .png()
        .toBuffer();
    }
    default:
      return format satisfies never;
  }
}

async function write(file: string, data: string | Buffer): Promise<void> {
  try {
    await writeFile(file, data);
  } catch (error) {
    throw new UsageError(`cannot write ${file}: ${(error as Error).message}`);
  }
}
