/**
 * `society itcma eval`: ITCMA-S's ablation (Zhang et al. 2024, Table 1) over the Irollan Valley
 * template. Each of the five architectures (full, filter only, memory only, driver only,
 * original) is a variant made of the template's parameters; each seed is an item. The runs are
 * an ordinary eval: people rate its items on the paper's five 7-point scales (`society rate RUN`
 * or the editor's Evals view), and the table shows their mean ratings per architecture beside
 * one number the runs give by themselves: the share of agent pairs that chatted.
 */

import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { evalIdOf } from '../../../eval/identity.ts';
import { RUBRICS } from '../../../eval/rubrics.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, VariantSpec } from '../../../eval/types.ts';
import {
  ARCHITECTURES,
  formatTable,
  PAPER_SOURCE,
  table1Cells,
} from '../../../paper-tables/itcma/table1.ts';
import { ranWithJson } from '../../../paper-tables/ran-with.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { UsageError } from '../../errors.ts';
import { completeRunInputs, fillExamples } from '../../inputs.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { type PreparedVariant, plannedJob, prepareVariants, variantJob } from '../eval/plan.ts';

/** The template this command runs unless `--document` names another. */
export const IROLLAN_TEMPLATE = fileURLToPath(
  new URL('../../../../templates/itcma-irollan-valley.society.json', import.meta.url),
);

/** Names an earlier release used, still taken by `--architectures`. */
const FORMER_NAMES: Readonly<Record<string, string>> = { 'filter-only': 'ltrha-only' };

export interface ItcmaEvalFlags extends EvalRunFlags, BudgetFlags {
  seeds?: string;
  steps?: string;
  architectures?: string;
  set: string[];
  model: string[];
  provider: string[];
  document?: string;
  concurrency?: string;
  simulate?: boolean;
  json?: boolean;
  db?: string;
  quiet?: boolean;
  retryFailed?: boolean;
}

/** The share of ordered agent pairs that chatted at least once, from a run's `heatmap`. */
export const talkedScorer: Scorer = {
  name: 'talked',
  describe: 'share of agent pairs that chatted',
  score(prediction) {
    const map = prediction as { counts?: unknown } | undefined;
    const counts = Array.isArray(map?.counts) ? (map.counts as unknown[][]) : [];
    const n = counts.length;
    if (n < 2) return 0;
    let talked = 0;
    for (const [i, row] of counts.entries())
      for (const [j, c] of (Array.isArray(row) ? row : []).entries())
        if (i !== j && typeof c === 'number' && c > 0) talked++;
    return talked / (n * (n - 1));
  },
};

/** Runs the eval; resolves to the exit code. */
export async function itcmaEvalCommand(flags: ItcmaEvalFlags): Promise<number> {
  const seeds = positiveInt(flags.seeds, '--seeds') ?? 2;
  if (seeds > 100) throw new UsageError('--seeds: at most 100');
  const steps = positiveInt(flags.steps, '--steps');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 2;
  const names = (flags.architectures ?? Object.keys(ARCHITECTURES).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((name) => FORMER_NAMES[name] ?? name);
  for (const name of names)
    if (!ARCHITECTURES[name])
      throw new UsageError(
        `--architectures ${name}: use any of ${Object.keys(ARCHITECTURES).join(', ')}`,
      );
  if (names.length === 0 || new Set(names).size !== names.length)
    throw new UsageError('--architectures: name each architecture once');
  const own = new Set(['filter', 'ltrha', 'driver', 'memory', 'steps']);
  const clash = flags.set.find((s) => own.has(s.split('=')[0]!.trim()));
  if (clash)
    throw new UsageError(
      `--set ${clash}: the architectures set filter, ltrha, driver and memory; use --steps for steps`,
    );

  const variants: VariantSpec[] = names.map((name) => ({
    name,
    model: flags.model,
    set: [
      ...Object.entries(ARCHITECTURES[name]!.set).map(([k, v]) => `${k}=${v}`),
      ...(steps !== undefined ? [`steps=${steps}`] : []),
      ...flags.set,
    ],
    provider: flags.provider,
  }));
  const document = flags.document ?? IROLLAN_TEMPLATE;
  const prepared = await prepareVariants(document, variants, [], flags);
  checkVariantBudgets(prepared, flags);
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const config: EvalConfig = {
    name: `ITCMA-S ablation · ${seeds} seed${seeds === 1 ? '' : 's'}${steps ? ` · ${steps} step${steps === 1 ? '' : 's'}` : ''}`,
    document,
    documentHash: prepared[0]!.documentHash,
    data: seeds === 1 ? 'seed 1' : `seeds 1–${seeds}`,
    dataHash: createHash('sha256').update(`seeds:${seeds}`).digest('hex'),
    map: ['settings.seed=item + 1'],
    expect: '',
    output: 'heatmap',
    scorer: { name: 'talked' },
    variants,
    mode,
    rubric: RUBRICS.itcma!,
  };
  const evalId = evalIdOf(config, prepared);
  const plan = planSeedJobs(prepared, { evalId, seeds, mode });
  // What each architecture's runs used: its document is bound with these values and recorded so.
  const ran = prepared.map((v) => ({ name: v.spec.name, params: v.compiled.params }));
  config.table = { kind: 'itcma-table1', context: { ran } };
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared,
    rows: seeds,
    flags,
    concurrency,
    scorer: talkedScorer,
    present: {
      text: (summary) => formatTable(summary, ran),
      json: (summary) => ({
        ...summary,
        params: ranWithJson(ran),
        paper: { source: PAPER_SOURCE, cells: table1Cells(summary) },
      }),
    },
  });
}

/** One job per seed × architecture: the document with the run's seed set to the item's. */
function planSeedJobs(
  variants: readonly PreparedVariant[],
  given: { evalId: string; seeds: number; mode: EvalConfig['mode'] },
): PlannedJob[] {
  const planned: PlannedJob[] = [];
  const docs = variants.map((v) => JSON.parse(v.documentText) as Record<string, unknown>);
  for (let item = 0; item < given.seeds; item++) {
    const seed = item + 1;
    for (const [index, variant] of variants.entries()) {
      const doc = docs[index]!;
      const settings = { ...(doc.settings as object | undefined), seed };
      const documentText = JSON.stringify({ ...doc, settings });
      // The seed is written into the document run; the job key stays the variant's.
      const job = { ...variantJob(given.evalId, item, variant, given.mode), documentText };
      planned.push(
        plannedJob({ row: { seed }, label: `seed ${seed}`, output: 'heatmap' }, job, (blobs) => {
          const run = { inputs: {} as Record<string, unknown>, humanAnswers: {} };
          fillExamples(run, variant.compiled.plan, blobs);
          completeRunInputs(variant.compiled.plan, run.inputs);
          return run;
        }),
      );
    }
  }
  return planned;
}
