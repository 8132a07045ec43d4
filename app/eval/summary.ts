/**
 * An eval's table, added up from its item records: per variant, the score, cost and latency, and
 * the mean rating per scale when people rate its items.
 */
import { compareWithBaseline, scoreInterval, solvedCount } from './comparison.ts';
import { ratedScales, scaleRatings } from './ratings.ts';
import { percentile } from './stats.ts';
import type {
  EvalItemRecord,
  EvalRating,
  EvalRecord,
  EvalSummary,
  VariantSummary,
} from './types.ts';

/**
 * The table of `record` from its items (those still running are left out) and its items'
 * ratings. Variants carry `ratings` when the eval has a rubric or any rating; every variant but
 * the first carries its paired comparison with the first (comparison.ts).
 */
export function summarize(
  record: EvalRecord,
  items: readonly EvalItemRecord[],
  ratings: readonly EvalRating[] = [],
): EvalSummary {
  const { rubric } = record.config;
  const scales = ratedScales(rubric, ratings);
  const finished = (name: string) =>
    items.filter((i) => i.variant === name && i.status !== 'running');
  const baseline = record.config.variants[0]?.name;
  const baselineRuns = baseline === undefined ? [] : finished(baseline);
  const variants: VariantSummary[] = record.config.variants.map(({ name }) => {
    const done = finished(name);
    const latencies = done.flatMap((i) => (i.latencyMs === undefined ? [] : [i.latencyMs]));
    const costUsd = done.reduce((a, i) => a + i.costUsd, 0);
    const solved = solvedCount(done, record.config.scorer.solvedAt);
    const vsBaseline =
      baseline === undefined || name === baseline
        ? undefined
        : compareWithBaseline(baseline, baselineRuns, done);
    return {
      name,
      n: done.length,
      failed: done.filter((i) => i.status === 'failed').length,
      score: scoreInterval(done),
      costUsd,
      ...(solved !== undefined ? { solved } : {}),
      ...(solved ? { costPerSolvedUsd: costUsd / solved } : {}),
      ...(vsBaseline ? { vsBaseline } : {}),
      tokens: done.reduce((a, i) => a + i.tokens, 0),
      latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
      ...(scales.length
        ? {
            ratings: scaleRatings(
              scales,
              ratings.filter((r) => r.variant === name),
              rubric,
            ),
          }
        : {}),
    };
  });
  return {
    evalId: record.id,
    name: record.name,
    status: record.status,
    items: record.items,
    scorer: record.config.scorer.graph
      ? `graph ${record.config.scorer.graph}`
      : record.config.scorer.name,
    simulated: record.simulated,
    document: record.config.document,
    data: record.config.data,
    createdAt: record.createdAt,
    ...(record.finishedAt !== undefined ? { finishedAt: record.finishedAt } : {}),
    variants,
    ...((record.config.repeats ?? 1) > 1 ? { repeats: record.config.repeats } : {}),
    ...(rubric ? { rubric } : {}),
  };
}

/** The items with the lowest scores first (failures first among equals), for reports. */
export function worstItems(items: readonly EvalItemRecord[], count: number): EvalItemRecord[] {
  return items
    .filter((i) => i.status !== 'running')
    .sort(
      (a, b) =>
        (a.score ?? 0) - (b.score ?? 0) ||
        Number(b.status === 'failed') - Number(a.status === 'failed') ||
        a.item - b.item ||
        (a.repeat ?? 0) - (b.repeat ?? 0) ||
        a.variant.localeCompare(b.variant),
    )
    .slice(0, count);
}
