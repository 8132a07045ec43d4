/**
 * `society nlsom caption-eval DATA --images DIR`: NLSOM's captioning (Zhuge et al., Sec. 2.2,
 * App. F) over TARA's news photos. Each photo runs templates/nlsom-captioning.society.json with
 * the article's first paragraph: the society captions the photo (it never sees the article), a
 * named-entity expert extracts the paragraph's entities, and the run's metric scores the caption
 * against them by sentence-embedding similarity. The table prints the mean ×100, the paper's
 * scale, with its 95% interval beside the paper's 20.6 (10 rounds) and the difference.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalIdOf } from '../../../eval/identity.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, VariantSpec } from '../../../eval/types.ts';
import {
  CAPTION_SOURCE,
  type CaptionTableContext,
  captionRows,
  captionText,
  NLSOM_CAPTION_TABLE,
} from '../../../paper-tables/nlsom/caption-presenter.ts';
import { type RanVariant, ranWithJson } from '../../../paper-tables/ran-with.ts';
import { sha256Hex } from '../../../providers/canonical.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { UsageError } from '../../errors.ts';
import { completeRunInputs, fillExamples, imagePixelsOf, readInputValue } from '../../inputs.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { plannedJob, prepareVariants, variantJob } from '../eval/plan.ts';
import { imagePathOf } from './eval.ts';
import { readTara, TaraDataError, type TaraItem, taraImageNames } from './tara-data.ts';

const TEMPLATE = fileURLToPath(
  new URL('../../../../templates/nlsom-captioning.society.json', import.meta.url),
);

export interface NlsomCaptionFlags extends EvalRunFlags, BudgetFlags {
  images?: string;
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

/** The photo of a record: one of its TARA names under the folder; else the reason it is not. */
function photoOf(item: TaraItem, dir: string): { path: string } | { error: string } {
  const names = taraImageNames(item.imageUrl);
  for (const name of names) {
    const found = imagePathOf(name, dir, dir);
    if (typeof found === 'string') return { path: found };
    if (found !== undefined) return { error: found.refused };
  }
  return { error: `no photo ${names.join(' or ')} under ${dir} (${item.entry})` };
}

/** Runs the eval; resolves to the exit code. */
export async function nlsomCaptionCommand(data: string, flags: NlsomCaptionFlags): Promise<number> {
  const limit = positiveInt(flags.limit, '--limit');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  if (flags.images !== undefined && !existsSync(flags.images))
    throw new UsageError(`--images ${flags.images}: no such folder`);
  let all: TaraItem[];
  try {
    all = readTara(data);
  } catch (error) {
    if (error instanceof TaraDataError) throw new UsageError(error.message);
    throw error;
  }
  const items = all.slice(0, limit ?? all.length);
  if (items.length === 0) throw new UsageError(`${data}: no record`);
  const imagesDir = resolve(flags.images ?? dirname(data));
  const photos = items.map((item) => photoOf(item, imagesDir));
  const found = photos.filter((p) => 'path' in p).length;

  const variants: VariantSpec[] = [
    { name: 'nlsom', model: flags.model, set: flags.set, provider: flags.provider },
  ];
  const prepared = await prepareVariants(TEMPLATE, variants, [], flags);
  checkVariantBudgets(prepared, flags);
  const variant = prepared[0]!;
  const rounds = variant.compiled.params.rounds;
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const where = flags.images === undefined ? `${imagesDir} (the data file's folder)` : imagesDir;
  const note = `photos: ${items.length} from ${data}; ${found === items.length ? `all found under ${where}` : `${items.length - found} not found under ${where} (those fail: TARA's photos are downloaded apart, by image_url)`}`;
  const tableContext: CaptionTableContext = {
    rounds: typeof rounds === 'number' ? rounds : null,
    note,
  };
  const config: EvalConfig = {
    name: `NLSOM captioning · ${basename(data)}`,
    document: TEMPLATE,
    documentHash: variant.documentHash,
    data,
    // The photos are part of the data: which ones were found changes what runs.
    dataHash: sha256Hex(JSON.stringify({ items, photos })),
    map: [`image=@image_url under ${imagesDir}`, 'article=lead_paragraph'],
    output: 'score',
    scorer: { name: 'caption-entity-similarity' },
    variants,
    ...(limit !== undefined ? { limit } : {}),
    mode,
    // Stored with the eval, so eval-show and a bundle print this table again.
    table: { kind: NLSOM_CAPTION_TABLE, context: tableContext },
  };
  const evalId = evalIdOf(config, prepared);
  const plan: PlannedJob[] = items.map((item, index) => {
    const job = variantJob(evalId, index, variant, mode);
    const common = {
      row: { ...item },
      label: item.abstract ?? item.paragraph.slice(0, 80),
      output: 'score',
    };
    const photo = photos[index]!;
    if ('error' in photo)
      return { ...common, job: { ...job, inputs: {}, blobs: [] }, error: photo.error };
    return plannedJob(common, job, (blobs) => {
      const run = {
        inputs: {
          article: item.paragraph,
          image: readInputValue(
            'image',
            { path: photo.path },
            'image',
            blobs,
            imagePixelsOf(variant.compiled.plan),
          ),
        } as Record<string, unknown>,
        humanAnswers: {},
      };
      fillExamples(run, variant.compiled.plan, blobs);
      completeRunInputs(variant.compiled.plan, run.inputs);
      return run;
    });
  });
  // The run's metric node scores the caption; the eval keeps its number (0–1).
  const scorer: Scorer = {
    name: 'caption-entity-similarity',
    describe: "similarity between the caption and the first paragraph's named entities",
    score: (prediction) => Number(prediction ?? 0),
  };
  const ran: RanVariant[] = [{ name: variant.spec.name, params: variant.compiled.params }];
  if (!flags.quiet && !flags.json) process.stderr.write(`${note}\n`);
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared,
    rows: items.length,
    flags,
    concurrency,
    scorer,
    present: {
      text: (summary, records) => captionText(summary, records, tableContext),
      json: (summary, records) => ({
        ...summary,
        params: ranWithJson(ran),
        paper: CAPTION_SOURCE,
        images: { dir: imagesDir, found, of: items.length },
        table: captionRows(records, tableContext),
      }),
    },
  });
}
