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
import { jobKeyOf } from '../../../eval/job.ts';
import {
  compareWithPaper,
  comparisonHeadings,
  type PaperComparison,
} from '../../../eval/paper-values.ts';
import { RUBRICS } from '../../../eval/rubrics.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import { hasNoScore, variantScoreText } from '../../../eval/score-text.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, EvalSummary, VariantSpec } from '../../../eval/types.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { columns } from '../../columns.ts';
import { UsageError } from '../../errors.ts';
import { completeRunInputs, fillExamples } from '../../inputs.ts';
import { type RanVariant, ranWithJson, ranWithLine } from '../../ran-with.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { type PreparedVariant, plannedJob, prepareVariants } from '../eval/plan.ts';

/** The template this command runs unless `--document` names another. */
export const IROLLAN_TEMPLATE = fileURLToPath(
  new URL('../../../../templates/itcma-irollan-valley.society.json', import.meta.url),
);

/** One of the paper's five architectures: its Table 1 row and the template's switches for it. */
export interface Architecture {
  /** The row's name in the paper's Table 1. */
  paper: string;
  /** The template parameters that make it (docs/itcma.md, "Parameters and the ablation"). */
  set: Readonly<Record<string, string>>;
}

/**
 * The paper's five architectures (Sec. 5.2), in Table 1's order. The base row is ITCMA as it
 * was: memory replayed as it was stored (6 earlier steps), ITCMA's driver (the previous driver
 * plus the mean of P, A and D), no Elim and no LTRHA. Each ablation adds one of ITCMA-S's parts
 * to that base: LTRHA (with the Elim filter, which the paper credits to it: "LTRHA filters and
 * marks actions"), the compressed memory (fewer memories searched: 3 steps), or ITCMA-S's driver
 * (Eqs. 13–15, with the demand term). ITCMA-S has all of them.
 */
export const ARCHITECTURES: Readonly<Record<string, Architecture>> = {
  original: {
    paper: 'ITCMA',
    set: { filter: 'false', ltrha: 'false', driver: 'false', memory: '6' },
  },
  'ltrha-only': {
    paper: 'LTRHA',
    set: { filter: 'true', ltrha: 'true', driver: 'false', memory: '6' },
  },
  'memory-only': {
    paper: 'Compressed Memory',
    set: { filter: 'false', ltrha: 'false', driver: 'false', memory: '3' },
  },
  'driver-only': {
    paper: 'Driver',
    set: { filter: 'false', ltrha: 'false', driver: 'true', memory: '6' },
  },
  full: { paper: 'ITCMA-S', set: { filter: 'true', ltrha: 'true', driver: 'true', memory: '3' } },
};

/** Names an earlier release used, still taken by `--architectures`. */
const FORMER_NAMES: Readonly<Record<string, string>> = { 'filter-only': 'ltrha-only' };

/**
 * The paper's Table 1 (48 raters, 7-point scales), per architecture: the means on
 * personification, consistency, logicality, exploration and proactiveness, in that order.
 */
export const PAPER_TABLE_1: Readonly<Record<string, readonly number[]>> = {
  original: [2.88, 2.46, 2.5, 2.85, 2.65],
  'ltrha-only': [4.88, 5.02, 4.75, 5.25, 4.6],
  'memory-only': [3.55, 4.21, 4.0, 3.75, 4.02],
  'driver-only': [4.29, 4.31, 4.63, 4.29, 4.06],
  full: [6.29, 6.0, 5.98, 6.02, 6.17],
};

/** The scales of Table 1's columns, in the order `PAPER_TABLE_1` lists them. */
const PAPER_SCALES = [
  'personification',
  'consistency',
  'logicality',
  'exploration',
  'proactiveness',
];

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
      const job = {
        evalId: given.evalId,
        item,
        variant: variant.spec.name,
        jobKey: jobKeyOf(variant.documentHash, item, variant.spec.name),
        documentText,
        mode: given.mode,
        ...(Object.keys(variant.providerOverrides).length
          ? { providerOverrides: variant.providerOverrides }
          : {}),
      };
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

/** One cell of Table 1 compared: an architecture on a scale, the paper's mean beside ours. */
export interface Table1Cell {
  architecture: string;
  /** The row's name in the paper, or null for a variant that is not one of its rows. */
  paperRow: string | null;
  scale: string;
  comparison: PaperComparison;
}

/** Where the paper's figures come from, as the table says it. */
export const PAPER_SOURCE = 'Table 1, 48 raters, 7-point Likert scales';

/**
 * Table 1's cells from an eval's summary: per architecture and scale, the paper's mean and ours
 * (the mean over rated agent trajectories, with its 95% t interval; n = agents × seeds rated).
 */
export function table1Cells(summary: EvalSummary): Table1Cell[] {
  const scales = summary.rubric?.scales.map((s) => s.id) ?? PAPER_SCALES;
  const two = (x: number) => x.toFixed(2);
  return summary.variants.flatMap((v) =>
    scales.map((scale) => {
      const r = v.ratings?.find((x) => x.scale === scale);
      const column = PAPER_SCALES.indexOf(scale);
      const value = column >= 0 ? PAPER_TABLE_1[v.name]?.[column] : undefined;
      const ours =
        r && r.n > 0
          ? { mean: r.mean, ci95: r.ci95 ?? ([r.mean, r.mean] as [number, number]), n: r.n }
          : null;
      return {
        architecture: v.name,
        paperRow: ARCHITECTURES[v.name]?.paper ?? null,
        scale,
        comparison: compareWithPaper(
          value === undefined ? null : { value, where: PAPER_SOURCE },
          ours,
          two,
        ),
      };
    }),
  );
}

/** The paper's Table 1 beside ours, cell by cell, then the share of agent pairs that talked. */
export function formatTable(summary: EvalSummary, ran: readonly RanVariant[]): string {
  const labels = new Map(
    (summary.rubric?.scales ?? RUBRICS.itcma!.scales).map((s) => [s.id, s.label]),
  );
  const cells = table1Cells(summary);
  const rows = [['architecture', 'paper row', 'scale', ...comparisonHeadings('mean'), 'n']];
  for (const c of cells)
    rows.push([
      c.architecture,
      c.paperRow ?? '–',
      labels.get(c.scale) ?? c.scale,
      c.comparison.text.paper,
      // A cell with no rating yet is a run nobody rated, not a missing run.
      c.comparison.ours === null ? 'not rated' : c.comparison.text.ours,
      c.comparison.text.diff,
      String(c.comparison.ours?.n ?? 0),
    ]);
  const talked = [['architecture', 'pairs that talked']];
  for (const v of summary.variants)
    talked.push([
      v.name,
      hasNoScore(v) ? variantScoreText(v) : `${(v.score.mean * 100).toFixed(0)}%`,
    ]);
  const rated = cells.some((c) => c.comparison.ours !== null);
  return [
    `ITCMA-S, ${PAPER_SOURCE}: the paper's mean beside ours (mean over the agent trajectories rated, 95% t interval, n = agents × seeds rated)${summary.simulated ? ' · simulated answers: no model acted' : ''}`,
    ...[ranWithLine(ran)].filter((line) => line !== undefined),
    ...columns(rows),
    '',
    ...columns(talked),
    rated
      ? "Ours and the paper's are different raters and runs; the paper's ± (not printed) is unlabelled."
      : `No ratings yet: give raters the blinded sheet (\`society itcma rating-sheet ${summary.evalId} --out DIR\`, then \`society itcma rating-import\`), or rate one agent with \`society rate RUN --agent AY --scale personification=5 …\`; this command again then prints the table (nothing is run twice).`,
  ].join('\n');
}
