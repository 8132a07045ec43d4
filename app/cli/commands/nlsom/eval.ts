/**
 * `society nlsom eval DATA`: NLSOM's VQA society (templates/nlsom-vqa.society.json) over an
 * A-OKVQA-format file, scored as NLSOM and A-OKVQA score multiple choice: the option letter the
 * leader (or the members' vote) gives against the right one. Each question × structure is a
 * run in the store, and the whole is an eval (`society evals`, `society eval-show`).
 *
 * The photos are COCO's and are not shipped with the questions. A question whose photo is not
 * found still runs, with the template's example picture, unless `--require-images` makes it
 * fail: the table then splits the accuracy into questions seen with their photo and questions
 * answered without it, since the latter measures the models' guesses from the words alone.
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAokvqaJson, readAokvqa } from '../../../eval/aokvqa.ts';
import {
  type DataRow,
  type Dataset,
  DatasetError,
  questionWithOptions,
  readDataset,
} from '../../../eval/dataset.ts';
import { DatasetPathError, datasetFile } from '../../../eval/dataset-files.ts';
import { evalIdOf } from '../../../eval/identity.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import { textScorer } from '../../../eval/scorers.ts';
import type { EvalConfig, VariantSpec } from '../../../eval/types.ts';
import {
  comparedAccuracy,
  formatAccuracy,
  paperColumn,
} from '../../../paper-tables/nlsom/accuracy.ts';
import { tableRows } from '../../../paper-tables/nlsom/table.ts';
import { ranWithJson } from '../../../paper-tables/ran-with.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { UsageError } from '../../errors.ts';
import { completeRunInputs, fillExamples, imagePixelsOf, readInputValue } from '../../inputs.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { type PreparedVariant, plannedJob, prepareVariants, variantJob } from '../eval/plan.ts';
import { parseStructures, splitRounds } from './table-flags.ts';

/** The VQA template this command runs unless `--document` names another. */
export const VQA_TEMPLATE = fileURLToPath(
  new URL('../../../../templates/nlsom-vqa.society.json', import.meta.url),
);

/** The VQA template whose members are Hugging Face VQA models (`--members experts`). */
export const VQA_EXPERTS_TEMPLATE = fileURLToPath(
  new URL('../../../../templates/nlsom-vqa-experts.society.json', import.meta.url),
);

export interface NlsomEvalFlags extends EvalRunFlags, BudgetFlags {
  images?: string;
  requireImages?: boolean;
  limit?: string;
  structure?: string;
  members?: string;
  set: string[];
  model: string[];
  provider: string[];
  document?: string;
  concurrency?: string;
  simulate?: boolean;
  json?: boolean;
  db?: string;
  quiet?: boolean;
}

/**
 * Where a row's photo is: under `--images DIR` by its file name (COCO's val2017 folder as
 * downloaded) or by its path as written; without `--images`, by its path relative to the data
 * file. Never outside that folder (app/eval/dataset-files.ts). A path that is absolute or steps
 * out with `..` (A-OKVQA's `_!_` files as NLSOM ships them write `../aokvqa/…/NAME.jpg`) is never
 * used as written: the photo is looked up by its file name inside the folder. A symlink leading
 * out of the folder is `{ refused }`, and its question fails. Undefined when no such file exists.
 */
export function imagePathOf(
  image: string,
  dataDir: string,
  imagesDir: string | undefined,
): string | { refused: string } | undefined {
  const root = imagesDir ?? dataDir;
  const asWritten =
    !isAbsolute(image) && !/^[A-Za-z]:|^\\/.test(image) && !image.split(/[\\/]/).includes('..');
  const candidates = [
    ...(imagesDir || !asWritten ? [basename(image)] : []),
    ...(asWritten ? [image] : []),
  ];
  for (const named of candidates) {
    try {
      return datasetFile(root, named);
    } catch (error) {
      if (!(error instanceof DatasetPathError)) throw error;
      if (error.rule !== 'missing' && error.rule !== 'not-a-file')
        return { refused: error.message };
    }
  }
  return undefined;
}

/** Runs the eval; resolves to the exit code. */
export async function nlsomEvalCommand(data: string, flags: NlsomEvalFlags): Promise<number> {
  const limit = positiveInt(flags.limit, '--limit');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  const structures = parseStructures(flags.structure);
  if (flags.set.some((s) => s.trim().startsWith('structure=')))
    throw new UsageError('use --structure, not --set structure=…');
  const { rounds, rest: sets } = splitRounds(flags.set);
  const members = flags.members ?? 'chat';
  if (members !== 'chat' && members !== 'experts')
    throw new UsageError(`--members ${members}: use chat or experts`);
  if (flags.members !== undefined && flags.document !== undefined)
    throw new UsageError('--members picks a template: give it or --document, not both');
  if (members === 'experts' && structures.some((s) => s !== 'monarchy'))
    throw new UsageError(
      '--members experts runs the monarchy only: the rights to know, change and execute give members prompts to read, which a VQA model does not take',
    );
  if (flags.images !== undefined && !existsSync(flags.images))
    throw new UsageError(`--images ${flags.images}: no such folder`);

  let dataset: ReturnType<typeof readDataset>;
  try {
    dataset = isAokvqaJson(data) ? readAokvqa(data) : readDataset(data);
  } catch (error) {
    if (error instanceof DatasetError) throw new UsageError(error.message);
    throw error;
  }
  const rows = dataset.rows.slice(0, limit ?? dataset.rows.length);
  const bad = rows.findIndex(
    (r) => typeof r.question !== 'string' || !Array.isArray(r.choices) || r.answer === undefined,
  );
  if (bad >= 0)
    throw new UsageError(
      `${data}: question ${bad + 1} lacks question, choices or answer (A-OKVQA's JSON, its _!_ lines, or JSONL with those fields)`,
    );

  const table = tableRows(structures, rounds);
  const variants: VariantSpec[] = table.map((row) => ({
    name: row.name,
    model: flags.model,
    set: [...row.set, ...sets],
    provider: flags.provider,
  }));
  const document = flags.document ?? (members === 'experts' ? VQA_EXPERTS_TEMPLATE : VQA_TEMPLATE);
  const prepared = await prepareVariants(document, variants, [], flags);
  checkVariantBudgets(prepared, flags);
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const imagesDir = flags.images === undefined ? undefined : resolve(flags.images);
  const config: EvalConfig = {
    name: `NLSOM VQA · ${basename(data)}`,
    document,
    documentHash: prepared[0]!.documentHash,
    data,
    dataHash: dataset.hash,
    map: [
      'question=question+choices',
      `image=@image${imagesDir ? ` under ${imagesDir}` : ''}${flags.requireImages ? ' (required)' : ''}`,
    ],
    expect: 'answerLetter',
    scorer: { name: 'choice' },
    variants,
    ...(limit !== undefined ? { limit } : {}),
    mode,
  };
  const evalId = evalIdOf(config, prepared);
  const found = rows.map((row) => imagePathOf(String(row.image ?? ''), dataset.dir, imagesDir));
  // A refused path is not a missing photo: its question fails, whatever --require-images says.
  const refused = found.map((p) => (typeof p === 'object' ? p.refused : undefined));
  const images = found.map((p) => (typeof p === 'string' ? p : undefined));
  const missing = found.filter((p) => p === undefined).length;
  const plan = planVqaJobs(prepared, {
    evalId,
    format: dataset.format,
    rows,
    images,
    refused,
    mode,
    requireImages: flags.requireImages === true,
  });
  const where = imagesDir ?? `${dataset.dir} (the data file's folder; set --images DIR)`;
  const imageNote =
    missing === 0
      ? `images: all ${rows.length} found`
      : flags.requireImages
        ? `images: ${missing} of ${rows.length} not found under ${where}; those questions fail (--require-images)`
        : `images: ${missing} of ${rows.length} not found under ${where}; those questions run with the template's example picture, so their accuracy measures the models' guesses from the words, not vision`;
  if (!flags.quiet) process.stderr.write(`${imageNote}\n`);
  const missingItems = new Set(found.flatMap((p, i) => (p === undefined ? [i] : [])));
  // What each structure's runs used: its document is bound with these values and recorded so.
  const ran = prepared.map((v) => ({ name: v.spec.name, params: v.compiled.params }));
  const paper = paperColumn(table, ran);
  config.table = {
    kind: 'nlsom-vqa',
    context: {
      missing: [...missingItems],
      imageNote,
      ran,
      paper: paper.map((p) => (p.figure ? { value: p.figure.value, where: p.figure.where } : null)),
    },
  };
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared,
    rows: rows.length,
    flags,
    concurrency,
    scorer: textScorer('choice'),
    present: {
      text: (summary, items) => formatAccuracy(summary, items, missingItems, imageNote, ran, paper),
      json: (summary, items) => ({
        ...summary,
        params: ranWithJson(ran),
        images: {
          dir: imagesDir ?? dataset.dir,
          found: rows.length - missing,
          missing,
          whenMissing: flags.requireImages ? 'failed' : 'example-picture',
        },
        accuracy: comparedAccuracy(summary, items, missingItems, paper),
      }),
    },
  });
}

/** One job per question × structure, its inputs the question with options and the photo. */
function planVqaJobs(
  variants: readonly PreparedVariant[],
  given: {
    evalId: string;
    format: Dataset['format'];
    rows: readonly DataRow[];
    images: readonly (string | undefined)[];
    refused: readonly (string | undefined)[];
    mode: EvalConfig['mode'];
    requireImages: boolean;
  },
): PlannedJob[] {
  const planned: PlannedJob[] = [];
  given.rows.forEach((row, item) => {
    // A `_!_` row's question already carries its options; a JSONL row's is the bare question.
    const question =
      given.format === 'mc-text'
        ? String(row.question)
        : questionWithOptions(String(row.question), (row.choices as unknown[]).map(String));
    const path = given.images[item];
    for (const variant of variants) {
      const job = variantJob(given.evalId, item, variant, given.mode);
      const common = {
        row,
        reference: row.answerLetter ?? row.answer,
        label: String(row.stem ?? row.question),
      };
      const refused = given.refused[item];
      if (refused !== undefined) {
        planned.push({ ...common, job: { ...job, inputs: {}, blobs: [] }, error: refused });
        continue;
      }
      if (path === undefined && given.requireImages) {
        planned.push({
          ...common,
          job: { ...job, inputs: {}, blobs: [] },
          error: `no photo ${String(row.image)} (--require-images)`,
        });
        continue;
      }
      planned.push(
        plannedJob(common, job, (blobs) => {
          const run = {
            inputs: { question } as Record<string, unknown>,
            humanAnswers: {},
          };
          if (path !== undefined)
            run.inputs.image = readInputValue(
              'image',
              { path },
              'image',
              blobs,
              imagePixelsOf(variant.compiled.plan),
            );
          fillExamples(run, variant.compiled.plan, blobs);
          completeRunInputs(variant.compiled.plan, run.inputs);
          return run;
        }),
      );
    }
  });
  return planned;
}
