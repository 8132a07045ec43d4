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
import type { PlannedJob } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, VariantSpec } from '../../../eval/types.ts';
import {
  durationOf,
  type EgoTableContext,
  egoRows,
  egoText,
  NLSOM_EGO_TABLE,
  rawTables,
  TABLE_7_SOURCE,
} from '../../../paper-tables/nlsom/ego-presenter.ts';
import { type RanVariant, ranWithJson } from '../../../paper-tables/ran-with.ts';
import { sha256Hex } from '../../../providers/canonical.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { UsageError } from '../../errors.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { plannedJob, prepareVariants, variantJob } from '../eval/plan.ts';
import { clipNarrations, EgoDataError, type NlqData, openNarrations, readNlq } from './ego-data.ts';

const template = (structure: string) =>
  fileURLToPath(
    new URL(`../../../../templates/nlsom-ego-${structure}.society.json`, import.meta.url),
  );

const STRUCTURES = ['monarchy', 'democracy'] as const;

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

/** The number of exchange rounds a debate document runs (its mindstorm's rounds less the opening). */
function exchangeRounds(documentText: string): number | undefined {
  const doc = JSON.parse(documentText) as { nodes?: Array<{ data?: Record<string, unknown> }> };
  const rounds = doc.nodes?.map((n) => n.data?.maxRounds).find((r) => typeof r === 'number');
  return typeof rounds === 'number' ? rounds - 1 : undefined;
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
      const job = variantJob(evalId, item, variant, mode);
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
  // Structures whose document names no rounds are left out: the label then shows "?".
  const rounds: Record<string, number> = {};
  for (const v of prepared) {
    const r = exchangeRounds(v.documentText);
    if (r !== undefined) rounds[v.spec.name] = r;
  }
  const ran: RanVariant[] = prepared.map((v) => ({
    name: v.spec.name,
    params: v.compiled.params,
  }));
  const note = `queries: ${queries.length} from ${data}${nlq.withoutText ? ` (${nlq.withoutText} without a query text left out)` : ''}; narrations from ${source.describe}`;
  // Stored with the eval, so eval-show and a bundle print this table again (ego-presenter.ts).
  const tableContext: EgoTableContext = {
    queries: queries.map(({ start, end, clipStartInVideo, clipEndInVideo }) => ({
      start,
      end,
      clipStartInVideo,
      clipEndInVideo,
    })),
    rounds,
    ran,
    note,
  };
  config.table = { kind: NLSOM_EGO_TABLE, context: tableContext };
  // The run's recall report scores R5@1 on the "w. exec." list; the table reads all its cells.
  const scorer: Scorer = {
    name: 'recall-at-k',
    describe: 'R5@1 of the w. exec. timestamps',
    score: (prediction) => Number((prediction as { score?: unknown } | undefined)?.score ?? 0),
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
      // The rows as answered read each run's report-raw output from the eval's store.
      text: (summary, items, outputs) => egoText(summary, items, tableContext, outputs),
      json: (summary, items, outputs) => ({
        ...summary,
        params: ranWithJson(ran),
        paper: TABLE_7_SOURCE,
        table: egoRows(tableContext.queries, summary, items, rounds, rawTables(outputs)),
      }),
    },
  });
}
