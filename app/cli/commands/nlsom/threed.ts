/**
 * `society nlsom 3d-eval PROMPTS`: NLSOM's Table 6 (Zhuge et al., App. H). Each prompt runs two
 * variants of one eval: `original`, the design built from the prompt as written
 * (templates/nlsom-3d-original.society.json), and `nlsom`, the design built from the prompt the
 * society refined (templates/nlsom-3d.society.json). Both are rendered from the same three
 * views and scored by the same multi-view CLIP score against the original prompt, so the
 * difference is the society's alone. The table prints, per prompt and on average, the paper's
 * figure, ours and the difference (the average difference with a paired bootstrap interval).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalIdOf } from '../../../eval/identity.ts';
import { jobKeyOf } from '../../../eval/job.ts';
import { pairedBootstrap } from '../../../eval/paired.ts';
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
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { plannedJob, prepareVariants } from '../eval/plan.ts';

const templatePath = (base: string) =>
  fileURLToPath(new URL(`../../../../templates/${base}.society.json`, import.meta.url));

/** The two arms, in the table's order: the baseline first. */
export const ARMS = [
  { name: 'original', template: 'nlsom-3d-original', label: 'original prompt (Imagine3D)' },
  { name: 'nlsom', template: 'nlsom-3d', label: "society's prompt (+NLSOM)" },
] as const;

/** Table 6 (CLIP × 100), by the word that names its prompt; the last entry is the average. */
const TABLE_6: Array<{ word: RegExp; name: string; original: number; nlsom: number }> = [
  { word: /ferrari/i, name: 'Ferrari', original: 30.0, nlsom: 29.0 },
  { word: /unicorn/i, name: 'Unicorn', original: 30.0, nlsom: 30.0 },
  { word: /flying/i, name: 'Flying', original: 28.6, nlsom: 26.0 },
  { word: /\bbee\b/i, name: 'Bee', original: 32.3, nlsom: 31.3 },
];
const TABLE_6_AVERAGE = { original: 30.3, nlsom: 29.1 };

/** Where the paper's figures come from, printed with the table. */
export const TABLE_6_SOURCE =
  "the paper's figures: NLSOM Table 6 (CLIP × 100 over the views; Luma Imagine3D designs, BLIP-2 critics, ChatGPT leader; the paper reads lower as better)";

export interface Nlsom3dFlags extends EvalRunFlags, BudgetFlags {
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

/** The prompts: one a line, or JSONL with a `prompt` field; a bad line is refused naming it. */
export function readPrompts(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  const prompts: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '') return;
    if (!trimmed.startsWith('{')) {
      prompts.push(trimmed);
      return;
    }
    let row: unknown;
    try {
      row = JSON.parse(trimmed);
    } catch {
      throw new UsageError(`${file}: line ${i + 1}: not JSON (a JSONL line starts with "{")`);
    }
    const prompt = (row as { prompt?: unknown }).prompt;
    if (typeof prompt !== 'string' || prompt.trim() === '')
      throw new UsageError(`${file}: line ${i + 1}: "prompt" must be a text`);
    prompts.push(prompt.trim());
  });
  return prompts;
}

/** One row: a prompt (or the average) with both arms and the difference compared. */
export interface ThreeDRow {
  prompt: string;
  paperColumn: string | null;
  original: PaperComparison;
  nlsom: PaperComparison;
  difference: PaperComparison & { p?: number; significant?: boolean };
}

const clip = (x: number) => (x * 100).toFixed(1);
const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${clip(Math.abs(x))}`;
const single = (x: number) => ({ mean: x, ci95: [x, x] as [number, number], n: 1 });

/** Per prompt and on average: the two arms and their difference, beside Table 6. */
export function threeDRows(
  prompts: readonly string[],
  items: readonly EvalItemRecord[],
): { rows: ThreeDRow[]; pairs: number } {
  const scoreOf = (item: number, arm: string) => {
    const found = items.find((i) => i.item === item && i.variant === arm);
    return found?.status === 'scored' && typeof found.score === 'number' ? found.score : undefined;
  };
  const rows: ThreeDRow[] = [];
  const a: number[] = [];
  const b: number[] = [];
  prompts.forEach((prompt, item) => {
    const paper = TABLE_6.find((p) => p.word.test(prompt));
    const o = scoreOf(item, 'original');
    const s = scoreOf(item, 'nlsom');
    if (o !== undefined && s !== undefined) {
      a.push(o);
      b.push(s);
    }
    const fig = (x: number | undefined) => (x === undefined ? null : x / 100);
    rows.push({
      prompt,
      paperColumn: paper?.name ?? null,
      original: compareWithPaper(fig(paper?.original), o === undefined ? null : single(o), clip),
      nlsom: compareWithPaper(fig(paper?.nlsom), s === undefined ? null : single(s), clip),
      difference: compareWithPaper(
        paper ? (paper.nlsom - paper.original) / 100 : null,
        o === undefined || s === undefined ? null : single(s - o),
        signed,
        signed,
      ),
    });
  });
  const test = pairedBootstrap(a, b);
  const arm = (xs: number[]) => (xs.length ? { ...meanWithInterval(xs), n: xs.length } : null);
  rows.push({
    prompt: `average over ${a.length} prompt${a.length === 1 ? '' : 's'} with both arms`,
    paperColumn: 'Average',
    original: compareWithPaper(TABLE_6_AVERAGE.original / 100, arm(a), clip),
    nlsom: compareWithPaper(TABLE_6_AVERAGE.nlsom / 100, arm(b), clip),
    difference: {
      ...compareWithPaper(
        (TABLE_6_AVERAGE.nlsom - TABLE_6_AVERAGE.original) / 100,
        a.length ? { mean: test.meanDiff, ci95: test.ci95, n: a.length } : null,
        signed,
        signed,
      ),
      ...(a.length > 1 ? { p: test.p, significant: test.significant } : {}),
    },
  });
  return { rows, pairs: a.length };
}

/** The paper's layout: per prompt, each arm and the difference as paper / ours / Δ. */
export function formatThreeD(rows: readonly ThreeDRow[]): string[] {
  const lines = [['prompt', 'Table 6 column', 'arm', ...comparisonHeadings('CLIP×100')]];
  for (const r of rows) {
    const name = r.prompt.length > 40 ? `${r.prompt.slice(0, 39)}…` : r.prompt;
    const column = r.paperColumn ?? '–';
    lines.push([name, column, ARMS[0].label, ...texts(r.original)]);
    lines.push(['', '', ARMS[1].label, ...texts(r.nlsom)]);
    const sig =
      r.difference.p === undefined
        ? ''
        : ` (paired bootstrap p=${r.difference.p.toFixed(3)}${r.difference.significant ? ', significant' : ', not significant'})`;
    lines.push(['', '', 'society − original', ...texts(r.difference, sig)]);
  }
  return columns(lines);
}

const texts = (c: PaperComparison, suffix = ''): [string, string, string] => [
  c.text.paper,
  `${c.text.ours}${suffix}`,
  c.text.diff,
];

/** Runs the eval; resolves to the exit code. */
export async function nlsom3dCommand(file: string, flags: Nlsom3dFlags): Promise<number> {
  const limit = positiveInt(flags.limit, '--limit');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  const all = readPrompts(file);
  const prompts = all.slice(0, limit ?? all.length);
  if (prompts.length === 0) throw new UsageError(`${file}: no prompt`);
  const variants: VariantSpec[] = ARMS.map((arm) => ({
    name: arm.name,
    model: flags.model,
    // The baseline declares no parameters: the society's `--set` values are not for it.
    set: arm.name === 'nlsom' ? flags.set : [],
    provider: flags.provider,
    document: templatePath(arm.template),
  }));
  const prepared = await prepareVariants(templatePath('nlsom-3d'), variants, [], flags);
  checkVariantBudgets(prepared, flags);
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const config: EvalConfig = {
    name: `NLSOM 3D generation · ${basename(file)}`,
    document: templatePath('nlsom-3d'),
    documentHash: prepared[1]!.documentHash,
    data: file,
    dataHash: sha256Hex(JSON.stringify(prompts)),
    map: ['prompt=prompt'],
    output: 'score',
    scorer: { name: 'multiview-clip-score' },
    variants,
    ...(limit !== undefined ? { limit } : {}),
    mode,
  };
  const evalId = evalIdOf(config, prepared);
  const plan: PlannedJob[] = [];
  prompts.forEach((prompt, item) => {
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
      plan.push(
        plannedJob({ row: { prompt }, label: prompt, output: 'score' }, job, () => ({
          inputs: { prompt },
        })),
      );
    }
  });
  // The run's own metric node scores the views; the eval keeps its number.
  const scorer: Scorer = {
    name: 'multiview-clip-score',
    describe: 'multi-view CLIP score of the views against the original prompt',
    score: (prediction) => Number(prediction ?? 0),
  };
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared,
    rows: prompts.length,
    flags,
    concurrency,
    scorer,
    present: {
      text: (summary: EvalSummary, items) => {
        const { rows } = threeDRows(prompts, items);
        return [
          `3D generation, CLIP × 100 over the views (NLSOM Table 6 layout)${summary.simulated ? ' · simulated answers and embeddings: no model' : ''}`,
          'both arms: the same stand-in designer, renderer (back, right, left) and CLIP score against the original prompt; higher is closer to the prompt',
          ...formatThreeD(rows),
          TABLE_6_SOURCE,
        ].join('\n');
      },
      json: (summary, items) => ({
        ...summary,
        paper: TABLE_6_SOURCE,
        ...threeDRows(prompts, items),
      }),
    },
  });
}
