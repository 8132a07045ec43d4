/**
 * `society nlsom ego-eval DATA --narrations FILE|DIR`: NLSOM's egocentric retrieval (Zhuge et
 * al., App. I, Table 7) over Ego4D's natural-language queries. Each query × structure runs the
 * debate template (templates/nlsom-ego-monarchy / -democracy) with the clip's narrations, and
 * its "w. exec." timestamps are scored by the template's recall report: plain R_k (a time inside
 * the answer window) and R_k@τ (the window widened by τ = 1 s and 10 s), k = 1, 3, 5. The two
 * heuristic rows of Table 7, random and grid, are computed on the same queries with no model:
 * grid exactly, random as its expected value (the chance that one of k uniform draws hits).
 * Every cell prints the paper's figure, ours with its 95% interval and the difference.
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalIdOf } from '../../../eval/identity.ts';
import { jobKeyOf } from '../../../eval/job.ts';
import {
  compareWithPaper,
  comparisonHeadings,
  type PaperComparison,
} from '../../../eval/paper-values.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import { meanWithInterval } from '../../../eval/stats.ts';
import type { EvalConfig, EvalItemRecord, EvalSummary, VariantSpec } from '../../../eval/types.ts';
import { sha256Hex } from '../../../providers/canonical.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { columns } from '../../columns.ts';
import { UsageError } from '../../errors.ts';
import { type RanVariant, ranWithJson, ranWithLine } from '../../ran-with.ts';
import { openStore } from '../../run-store.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { plannedJob, prepareVariants } from '../eval/plan.ts';
import {
  clipNarrations,
  EgoDataError,
  type EgoQuery,
  type NlqData,
  openNarrations,
  readNlq,
} from './ego-data.ts';

const template = (structure: string) =>
  fileURLToPath(
    new URL(`../../../../templates/nlsom-ego-${structure}.society.json`, import.meta.url),
  );

const STRUCTURES = ['monarchy', 'democracy'] as const;

/** Table 7's columns, in its order: R_k plain, @1 s, @10 s for k = 1, 3, 5. */
export const EGO_COLUMNS = ['R1', 'R1@1', 'R1@10', 'R3', 'R3@1', 'R3@10', 'R5', 'R5@1', 'R5@10'];

/** Table 7's rows (percent), by our row key: the heuristics, and each structure w. exec. by rounds. */
const TABLE_7: Record<string, { label: string; values: number[] }> = {
  random: {
    label: 'random (0)',
    values: [4.69, 5.21, 12.5, 7.29, 7.81, 20.31, 10.42, 11.46, 30.21],
  },
  grid: { label: 'grid (0)', values: [3.12, 3.65, 7.81, 6.25, 7.81, 15.1, 11.98, 14.06, 27.6] },
  'monarchy:1': {
    label: 'm. w.exec (4, 1)',
    values: [7.81, 9.9, 13.02, 16.67, 18.75, 29.17, 25.0, 27.08, 40.62],
  },
  'democracy:1': {
    label: 'd. w.exec (4, 1)',
    values: [9.38, 10.42, 17.19, 17.71, 18.23, 29.17, 22.92, 25.0, 39.58],
  },
  'raw:monarchy:1': {
    label: 'm. (4, 1)',
    values: [6.77, 8.33, 9.9, 14.58, 16.15, 21.88, 19.27, 20.83, 25.52],
  },
  'raw:democracy:1': {
    label: 'd. (4, 1)',
    values: [8.85, 9.35, 14.58, 16.67, 16.67, 23.96, 18.75, 20.31, 28.12],
  },
  'monarchy:2': {
    label: 'm. w.exec (4, 2)',
    values: [7.14, 8.79, 13.19, 14.29, 17.03, 24.18, 23.63, 25.82, 37.36],
  },
  'democracy:2': {
    label: 'd. w.exec (4, 2)',
    values: [8.85, 11.98, 16.67, 16.15, 18.75, 29.18, 23.44, 27.05, 40.1],
  },
};

/** Where the paper's figures come from, printed with the table. */
export const TABLE_7_SOURCE =
  "the paper's figures: NLSOM Table 7 (Ego4D NLQ, 5% of val: 192 queries, ChatGPT debaters, human narrations)";

export interface NlsomEgoFlags extends EvalRunFlags, BudgetFlags {
  narrations?: string;
  structure?: string;
  set: string[];
  model: string[];
  provider: string[];
  limit?: string;
  concurrency?: string;
  simulate?: boolean;
  json?: boolean;
  db?: string;
  quiet?: boolean;
}

/** A query's clip length, T, in seconds. */
const durationOf = (q: EgoQuery) => q.clipEndInVideo - q.clipStartInVideo;
const parse = (key: string) => {
  const [k, tau] = key.slice(1).split('@');
  return { k: Number(k), tau: tau === undefined ? 0 : Number(tau) };
};
const hit = (times: readonly number[], q: EgoQuery, k: number, tau: number) =>
  times.slice(0, k).some((t) => t >= q.start - tau && t <= q.end + tau) ? 1 : 0;

/** The grid baseline: k + 1 equal parts of the clip, the k boundaries as predictions. */
export function gridHit(q: EgoQuery, key: string): number {
  const { k, tau } = parse(key);
  const T = durationOf(q);
  return hit(
    Array.from({ length: k }, (_, i) => (T * (i + 1)) / (k + 1)),
    q,
    k,
    tau,
  );
}

/** The random baseline's expected hit: 1 − (1 − p)^k, p the widened window's share of [0, T]. */
export function randomHit(q: EgoQuery, key: string): number {
  const { k, tau } = parse(key);
  const T = durationOf(q);
  const inside = Math.min(T, q.end + tau) - Math.max(0, q.start - tau);
  const p = Math.max(0, Math.min(1, inside / T));
  return 1 - (1 - p) ** k;
}

/** The number of exchange rounds a debate document runs (its mindstorm's rounds less the opening). */
function exchangeRounds(documentText: string): number | undefined {
  const doc = JSON.parse(documentText) as { nodes?: Array<{ data?: Record<string, unknown> }> };
  const rounds = doc.nodes?.map((n) => n.data?.maxRounds).find((r) => typeof r === 'number');
  return typeof rounds === 'number' ? rounds - 1 : undefined;
}

/** One row of the table: its cells compared with the paper's. */
export interface EgoRow {
  key: string;
  label: string;
  n: number;
  failed: number;
  cells: Array<{ column: string } & PaperComparison>;
}

const pct = (x: number) => (x * 100).toFixed(2);

function row(key: string, label: string, perQuery: (column: string) => number[], failed = 0) {
  const paper = TABLE_7[key];
  const cells = EGO_COLUMNS.map((column, c) => {
    const scores = perQuery(column);
    const ours = scores.length ? { ...meanWithInterval(scores), n: scores.length } : null;
    const figure = paper ? { value: paper.values[c]! / 100, where: 'Table 7' } : null;
    return { column, ...compareWithPaper(figure, ours, pct) };
  });
  return { key, label, n: perQuery(EGO_COLUMNS[0]!).length, failed, cells };
}

/** A run's recall table as answered, before "w. exec." (its `report-raw` output), by run id. */
export type RawTables = (runId: string) => Record<string, unknown> | undefined;

/**
 * The table: random and grid on these queries, then each structure's runs as answered (the
 * list the editor or the vote gave) and after "w. exec." (the list the eval scores).
 */
export function egoRows(
  queries: readonly EgoQuery[],
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  rounds: Readonly<Record<string, number | undefined>>,
  raw: RawTables = () => undefined,
): EgoRow[] {
  const rows: EgoRow[] = [
    row('random', 'random (expected, 0 calls)', (c) => queries.map((q) => randomHit(q, c))),
    row('grid', 'grid (0 calls)', (c) => queries.map((q) => gridHit(q, c))),
  ];
  for (const v of summary.variants) {
    const own = items.filter((i) => i.variant === v.name && i.status !== 'running');
    const R = rounds[v.name];
    const short = v.name === 'monarchy' ? 'm.' : 'd.';
    const failed = own.filter((i) => i.status === 'failed').length;
    // A failed run is a query not retrieved: a miss in every column, and counted.
    const cell = (table: Record<string, unknown> | undefined, column: string) =>
      Number(table?.[column] ?? 0);
    const exec = (i: EvalItemRecord) =>
      i.status === 'failed'
        ? undefined
        : (i.prediction as { table?: Record<string, unknown> } | undefined)?.table;
    const asAnswered = (i: EvalItemRecord) =>
      i.status === 'failed' || i.runId === undefined ? undefined : raw(i.runId);
    // Runs stored before the document had a report-raw output give no such row.
    if (own.some((i) => asAnswered(i) !== undefined))
      rows.push(
        row(
          `raw:${v.name}:${R}`,
          `${short} (4, ${R ?? '?'})`,
          (c) => own.map((i) => cell(asAnswered(i), c)),
          failed,
        ),
      );
    rows.push(
      row(
        `${v.name}:${R}`,
        `${short} w.exec (4, ${R ?? '?'})`,
        (c) => own.map((i) => cell(exec(i), c)),
        failed,
      ),
    );
  }
  return rows;
}

/** The paper's layout: one line per row × column, paper, ours [95% CI], Δ (percent). */
export function formatEgoTable(rows: readonly EgoRow[]): string[] {
  const [paper, ours, diff] = comparisonHeadings('%');
  const lines = [['method', 'n', 'column', paper, ours, diff]];
  for (const r of rows)
    for (const cell of r.cells)
      lines.push([
        r.label,
        `${r.n}${r.failed ? ` (${r.failed} failed)` : ''}`,
        cell.column,
        cell.text.paper,
        cell.text.ours,
        cell.text.diff,
      ]);
  return columns(lines);
}

/** Reads the queries and narrations; a malformed file is a usage error naming it. */
function readData(data: string, narrations: string, limit: number | undefined) {
  try {
    const nlq: NlqData = readNlq(data);
    const source = openNarrations(narrations);
    const queries = nlq.queries.slice(0, limit ?? nlq.queries.length);
    const texts = queries.map((q) => {
      const all = source.of(q.videoUid);
      if (all === undefined)
        throw new EgoDataError(
          `${source.describe}: no narrations for video ${q.videoUid} (asked by ${data}: ${q.entry})`,
        );
      return clipNarrations(all, q);
    });
    return { nlq, queries, texts, source };
  } catch (error) {
    if (error instanceof EgoDataError) throw new UsageError(error.message);
    throw error;
  }
}

/** Runs the eval; resolves to the exit code. */
export async function nlsomEgoCommand(data: string, flags: NlsomEgoFlags): Promise<number> {
  if (flags.narrations === undefined)
    throw new UsageError(
      "--narrations FILE|DIR is required: Ego4D's narration.json, or a folder of VIDEO_UID.json / VIDEO_UID.txt",
    );
  const limit = positiveInt(flags.limit, '--limit');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  const structures = (flags.structure ?? 'monarchy,democracy')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of structures)
    if (!(STRUCTURES as readonly string[]).includes(s))
      throw new UsageError(
        `--structure ${s}: use monarchy, democracy or both (monarchy,democracy)`,
      );
  if (structures.length === 0 || new Set(structures).size !== structures.length)
    throw new UsageError('--structure: name monarchy, democracy or both, each once');

  const { nlq, queries, texts, source } = readData(data, flags.narrations, limit);
  if (queries.length === 0) throw new UsageError(`${data}: no query with a text to run`);

  const variants: VariantSpec[] = structures.map((structure) => ({
    name: structure,
    model: flags.model,
    set: flags.set,
    provider: flags.provider,
    document: template(structure),
  }));
  const prepared = await prepareVariants(template(structures[0]!), variants, [], flags);
  checkVariantBudgets(prepared, flags);
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const config: EvalConfig = {
    name: `NLSOM egocentric retrieval · ${basename(data)}`,
    document: template(structures[0]!),
    documentHash: prepared[0]!.documentHash,
    data,
    // The narrations are part of the data: another narration file is another eval.
    dataHash: sha256Hex(JSON.stringify({ queries, texts })),
    map: [
      'query=query',
      'window=clip_start_sec-clip_end_sec',
      'duration=clip length',
      `narrations=@${flags.narrations}`,
    ],
    expect: 'window',
    output: 'report',
    scorer: { name: 'recall-at-k' },
    variants,
    ...(limit !== undefined ? { limit } : {}),
    mode,
  };
  const evalId = evalIdOf(config, prepared);
  const plan: PlannedJob[] = [];
  queries.forEach((q, item) => {
    const window = `${q.start}-${q.end}`;
    for (const variant of prepared) {
      const job = {
        evalId,
        item,
        variant: variant.spec.name,
        jobKey: jobKeyOf(variant.documentHash, item, variant.spec.name),
        documentText: variant.documentText,
        mode,
        ...(Object.keys(variant.providerOverrides).length
          ? { providerOverrides: variant.providerOverrides }
          : {}),
      };
      const common = { row: { ...q }, reference: window, label: q.query, output: 'report' };
      if (texts[item] === '') {
        plan.push({
          ...common,
          job: { ...job, inputs: {}, blobs: [] },
          error: `no narration inside clip ${q.clipUid} of video ${q.videoUid}`,
        });
        continue;
      }
      plan.push(
        plannedJob(common, job, () => ({
          inputs: {
            query: q.query,
            window,
            duration: String(Math.round(durationOf(q) * 100) / 100),
            narrations: texts[item]!,
          },
        })),
      );
    }
  });
  const rounds = Object.fromEntries(
    prepared.map((v) => [v.spec.name, exchangeRounds(v.documentText)]),
  );
  const ran: RanVariant[] = prepared.map((v) => ({
    name: v.spec.name,
    params: v.compiled.params,
  }));
  const note = `queries: ${queries.length} from ${data}${nlq.withoutText ? ` (${nlq.withoutText} without a query text left out)` : ''}; narrations from ${source.describe}`;
  // The run's recall report scores R5@1 on the "w. exec." list; the table reads all its cells.
  const scorer: Scorer = {
    name: 'recall-at-k',
    describe: 'R5@1 of the w. exec. timestamps',
    score: (prediction) => Number((prediction as { score?: unknown } | undefined)?.score ?? 0),
  };
  // The rows as answered read each run's report-raw output from the store the runs are in.
  const tables = <T>(
    show: (rows: EgoRow[]) => T,
    summary: EvalSummary,
    items: readonly EvalItemRecord[],
  ) => {
    const store = openStore(flags.db);
    try {
      const raw: RawTables = (runId) => {
        const report = store.getRun(runId)?.outputs?.['report-raw'] as
          | { table?: Record<string, unknown> }
          | undefined;
        return report?.table;
      };
      return show(egoRows(queries, summary, items, rounds, raw));
    } finally {
      store.close();
    }
  };
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared,
    rows: queries.length,
    flags,
    concurrency,
    scorer,
    present: {
      text: (summary, items) => {
        const settings = ranWithLine(ran);
        return [
          `Ego4D NLQ recall, % (NLSOM Table 7 layout)${summary.simulated ? ' · simulated answers: made-up timestamps, no model' : ''}`,
          ...(settings ? [settings] : []),
          note,
          ...tables(formatEgoTable, summary, items),
          TABLE_7_SOURCE,
          'random is its expected value over uniform draws; grid and random use no model; a failed run counts as a miss',
        ].join('\n');
      },
      json: (summary, items) => ({
        ...summary,
        params: ranWithJson(ran),
        paper: TABLE_7_SOURCE,
        table: tables((rows) => rows, summary, items),
      }),
    },
  });
}
