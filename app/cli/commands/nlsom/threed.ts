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
import type { PlannedJob } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, VariantSpec } from '../../../eval/types.ts';
import {
  ARMS,
  NLSOM_3D_TABLE,
  TABLE_6_SOURCE,
  type ThreeDTableContext,
  threeDRows,
  threeDText,
} from '../../../paper-tables/nlsom/threed-presenter.ts';
import { sha256Hex } from '../../../providers/canonical.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { UsageError } from '../../errors.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { plannedJob, prepareVariants, variantJob } from '../eval/plan.ts';

const templatePath = (base: string) =>
  fileURLToPath(new URL(`../../../../templates/${base}.society.json`, import.meta.url));

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

/** Runs the eval; resolves to the exit code. */
export async function nlsom3dCommand(file: string, flags: Nlsom3dFlags): Promise<number> {
  const limit = positiveInt(flags.limit, '--limit');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  const all = readPrompts(file);
  const prompts = all.slice(0, limit ?? all.length);
  if (prompts.length === 0) throw new UsageError(`${file}: no prompt`);
  const tableContext: ThreeDTableContext = { prompts };
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
    // Stored with the eval, so eval-show and a bundle print this table again.
    table: { kind: NLSOM_3D_TABLE, context: tableContext },
  };
  const evalId = evalIdOf(config, prepared);
  const plan: PlannedJob[] = [];
  prompts.forEach((prompt, item) => {
    for (const variant of prepared) {
      const job = variantJob(evalId, item, variant, mode);
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
      text: (summary, items) => threeDText(summary, items, tableContext),
      json: (summary, items) => ({
        ...summary,
        paper: TABLE_6_SOURCE,
        ...threeDRows(prompts, items),
      }),
    },
  });
}
