/**
 * From `society eval` flags to jobs: each variant's document compiled with its options, each
 * dataset row turned into run inputs (`--map`, the document's examples for the rest), and the
 * eval's identity (app/eval/identity.ts), which derives from all of that so the same command
 * resumes the same eval.
 */

import { readFileSync } from 'node:fs';
import type { CompiledGraph } from '../../../compiler/index.ts';
import type { DataRow, Dataset } from '../../../eval/dataset.ts';
import { datasetFile } from '../../../eval/dataset-files.ts';
import { type EvalJob, jobBlobs, jobKeyOf } from '../../../eval/job.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import { textOf } from '../../../eval/scorers.ts';
import type { ScorerSpec, VariantSpec } from '../../../eval/types.ts';
import { runFields } from '../../../node-sdk/run-fields.ts';
import { sha256Hex } from '../../../providers/canonical.ts';
import type { ProfileOverride } from '../../../providers/profiles.ts';
import { documentTextOf } from '../../../runs/record.ts';
import { BlobStore } from '../../../runtime/blobs.ts';
import { isPrototypeName, prototypeNameMessage } from '../../../schema/names.ts';
import { splitAssignment } from '../../assignment.ts';
import { applyBudgetFlags, type BudgetFlags } from '../../budget-check.ts';
import { compileFile, problemsExit } from '../../document-file.ts';
import { UsageError } from '../../errors.ts';
import { completeRunInputs, fillExamples, imagePixelsOf, readInputValue } from '../../inputs.ts';
import { parseProviders } from '../../provider-flags.ts';
import { applyModelOverrides } from '../run.ts';

/** `INPUT=FIELD` (the field's value) or `INPUT=@FIELD` (the file whose path the field holds). */
export interface Mapping {
  input: string;
  field: string;
  file: boolean;
}

export function parseMappings(assignments: readonly string[]): Mapping[] {
  return assignments.map((assignment) => {
    const [input, target] = splitAssignment(assignment, '--map');
    const file = target.startsWith('@');
    const field = file ? target.slice(1) : target;
    if (field === '') throw new UsageError(`--map ${assignment}: name a field after =`);
    if (isPrototypeName(field))
      throw new UsageError(`--map ${assignment}: ${prototypeNameMessage(field, 'a field name')}`);
    return { input, field, file };
  });
}

/** Splits a variant's options as a shell would: spaces separate, quotes group. */
export function splitOptions(text: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

/**
 * `--variant NAME=OPTIONS`, OPTIONS being run options: `--model P=PROV:MODEL`, `--set N=V`,
 * `--provider N=URL`, `--document FILE` (each repeatable but `--document`).
 */
export function parseVariant(text: string): VariantSpec {
  const [name, options] = splitAssignment(text, '--variant');
  if (!/^[\w.-]{1,40}$/.test(name))
    throw new UsageError(
      `--variant ${name}: a variant's name is up to 40 letters, digits, dots, dashes or underscores`,
    );
  const variant: VariantSpec = { name, model: [], set: [], provider: [] };
  const words = splitOptions(options);
  for (let i = 0; i < words.length; i++) {
    const flag = words[i]!;
    const value = words[i + 1];
    if (value === undefined || value.startsWith('--'))
      throw new UsageError(`--variant ${name}: ${flag} needs a value`);
    i++;
    if (flag === '--model') variant.model.push(value);
    else if (flag === '--set') variant.set.push(value);
    else if (flag === '--provider') variant.provider.push(value);
    else if (flag === '--document') {
      if (variant.document) throw new UsageError(`--variant ${name}: --document is given twice`);
      variant.document = value;
    } else
      throw new UsageError(
        `--variant ${name}: unknown option ${flag} (a variant takes --model, --set, --provider and --document)`,
      );
  }
  return variant;
}

/** One variant ready to run: its compiled document and where its runs go. */
export interface PreparedVariant {
  spec: VariantSpec;
  compiled: Extract<Awaited<ReturnType<typeof compileFile>>, { ok: true }>;
  documentText: string;
  documentHash: string;
  providerOverrides: Record<string, ProfileOverride>;
}

/**
 * Compiles each variant's document with its options, and `budget`'s flags (`--max-calls` …)
 * over its budget; any problem ends the command (exit 2).
 * `providers` (the eval's own `--provider`) apply to every variant, under the variant's own:
 * they say where models are reached, not what is evaluated, so they are not part of the eval's
 * identity (a server that moved does not start the eval afresh).
 */
export async function prepareVariants(
  file: string,
  variants: readonly VariantSpec[],
  providers: readonly string[] = [],
  budget: BudgetFlags = {},
): Promise<PreparedVariant[]> {
  const prepared: PreparedVariant[] = [];
  for (const spec of variants) {
    const path = spec.document ?? file;
    const compiled = await compileFile(
      path,
      (doc) => {
        applyModelOverrides(doc, spec.model);
        applyBudgetFlags(doc, budget);
      },
      spec.set,
    );
    if (!compiled.ok) throw problemsExit(path, compiled.problems);
    const documentText = documentTextOf(compiled);
    prepared.push({
      spec,
      compiled,
      documentText,
      documentHash: sha256Hex(documentText),
      providerOverrides: { ...parseProviders([...providers]), ...parseProviders(spec.provider) },
    });
  }
  return prepared;
}

/** Every mapped input must be one the document takes, for every variant. */
export function checkMappings(mappings: readonly Mapping[], variants: readonly PreparedVariant[]) {
  for (const variant of variants) {
    const fields = runFields(variant.compiled.plan.nodes.values());
    for (const { input } of mappings) {
      if (fields.inputs.has(input) || fields.answers.has(input)) continue;
      const known = [...fields.inputs.keys(), ...fields.answers];
      throw new UsageError(
        `--map ${input}: ${variant.spec.document ?? 'the document'}${variant.spec.name === 'default' ? '' : ` (variant ${variant.spec.name})`} has no input "${input}"${known.length ? ` (it takes: ${known.join(', ')})` : ''}`,
      );
    }
  }
}

/**
 * Every field `--map` and `--expect` name must be in the data: a typo would otherwise fail every
 * item (or score every answer against nothing) and be recorded as a finished eval. A field that
 * only some rows lack is left to fail those items alone.
 */
export function checkFields(
  given: { map: readonly string[]; mappings: readonly Mapping[]; expect?: string },
  rows: readonly DataRow[],
): void {
  const fields: string[] = [];
  for (const row of rows)
    for (const key of Object.keys(row)) if (!fields.includes(key)) fields.push(key);
  const have = (field: string) =>
    rows.some((row) => Object.hasOwn(row, field) && row[field] !== undefined);
  const known = ` (fields: ${fields.join(', ') || 'none'})`;
  for (const [index, { field }] of given.mappings.entries())
    if (!have(field))
      throw new UsageError(
        `--map ${given.map[index]}: the dataset's rows have no field "${field}"${known}`,
      );
  if (given.expect !== undefined && !have(given.expect))
    throw new UsageError(
      `--expect ${given.expect}: the dataset's rows have no field "${given.expect}"${known}`,
    );
}

/** What building an item's inputs needs. */
export interface JobInputs {
  evalId: string;
  dataset: Dataset;
  /** Where `@FIELD` files are read (`--files DIR`); the data file's folder when absent. */
  filesDir?: string;
  rows: readonly DataRow[];
  mappings: readonly Mapping[];
  expect?: string;
  output?: string;
  mode: EvalJob['mode'];
  cassetteText?: string;
  scorer: ScorerSpec;
}

/**
 * The jobs: every row under every variant. A row that cannot become inputs (a missing field, a
 * file that is not there) gives a job that fails with that reason, not a stopped eval.
 */
export function planJobs(variants: readonly PreparedVariant[], given: JobInputs): PlannedJob[] {
  const planned: PlannedJob[] = [];
  // What each variant's document takes, found once rather than for every row.
  const fieldsOf = new Map(
    variants.map((v) => [v, runFields(v.compiled.plan.nodes.values())] as const),
  );
  given.rows.forEach((row, item) => {
    const reference = given.expect === undefined ? undefined : row[given.expect];
    const label = labelOf(row);
    for (const variant of variants) {
      const base = {
        ...variantJob(given.evalId, item, variant, given.mode),
        ...(given.cassetteText !== undefined ? { cassetteText: given.cassetteText } : {}),
      };
      const common = {
        row,
        ...(reference !== undefined ? { reference } : {}),
        ...(label !== undefined ? { label } : {}),
        ...(given.output !== undefined ? { output: given.output } : {}),
      };
      planned.push(
        plannedJob(common, base, (blobs) =>
          rowInputs(row, item, variant.compiled, fieldsOf.get(variant)!, given, blobs),
        ),
      );
    }
  });
  return planned;
}

/**
 * What every job of `variant` for dataset row `item` carries besides its inputs: its identity
 * (the job key from the variant's document), the document to run, the mode and the variant's
 * provider redirects.
 */
export function variantJob(
  evalId: string,
  item: number,
  variant: Pick<PreparedVariant, 'spec' | 'documentText' | 'documentHash' | 'providerOverrides'>,
  mode: EvalJob['mode'],
): Omit<EvalJob, 'inputs' | 'blobs' | 'humanAnswers'> {
  return {
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
}

/**
 * A job whose inputs `build` makes (files read into `blobs`); when it throws (a missing field, a
 * file that is not there) the job carries the reason and fails alone, without a run.
 */
export function plannedJob(
  common: Omit<PlannedJob, 'job' | 'error'>,
  job: Omit<EvalJob, 'inputs' | 'blobs' | 'humanAnswers'>,
  build: (blobs: BlobStore) => {
    inputs: Record<string, unknown>;
    humanAnswers?: Record<string, string>;
  },
): PlannedJob {
  try {
    const blobs = new BlobStore();
    const { inputs, humanAnswers } = build(blobs);
    return {
      ...common,
      job: {
        ...job,
        inputs,
        ...(humanAnswers && Object.keys(humanAnswers).length ? { humanAnswers } : {}),
        blobs: jobBlobs(inputs, blobs),
      },
    };
  } catch (error) {
    return { ...common, job: { ...job, inputs: {}, blobs: [] }, error: (error as Error).message };
  }
}

function rowInputs(
  row: DataRow,
  item: number,
  compiled: CompiledGraph,
  fields: ReturnType<typeof runFields>,
  given: JobInputs,
  blobs: BlobStore,
): { inputs: Record<string, unknown>; humanAnswers: Record<string, string> } {
  const result = {
    inputs: {} as Record<string, unknown>,
    humanAnswers: {} as Record<string, string>,
  };
  for (const { input, field, file } of given.mappings) {
    const value = row[field];
    if (value === undefined || value === null || value === '')
      throw new UsageError(`item ${item + 1} has no field "${field}"`);
    const port = fields.inputs.get(input);
    if (file) {
      // Only inside the data file's folder (or --files DIR): see app/eval/dataset-files.ts.
      const path = datasetFile(given.filesDir ?? given.dataset.dir, String(value));
      if (port)
        result.inputs[input] = readInputValue(
          input,
          { path },
          port.modality,
          blobs,
          imagePixelsOf(compiled.plan),
        );
      else result.humanAnswers[input] = readFileSync(path, 'utf8');
      continue;
    }
    if (!port) {
      result.humanAnswers[input] = textOf(value);
      continue;
    }
    // A JSON input takes a row's list or object as it is; other kinds read its text.
    result.inputs[input] =
      typeof value === 'object' && (port.modality === 'json' || port.modality.startsWith('list<'))
        ? value
        : readInputValue(
            input,
            { text: typeof value === 'string' ? value : JSON.stringify(value) },
            port.modality,
            blobs,
          );
  }
  fillExamples(result, compiled.plan, blobs);
  completeRunInputs(compiled.plan, result.inputs);
  return result;
}

/** A short name for an item: its question, prompt or text field, cut to 120 characters. */
function labelOf(row: DataRow): string | undefined {
  // A multiple-choice row's stem is its question without the options.
  for (const key of ['stem', 'question', 'prompt', 'input', 'text', 'task', 'id']) {
    const value = row[key];
    if (typeof value === 'string' || typeof value === 'number') {
      const text = String(value);
      return text.length > 120 ? `${text.slice(0, 119)}…` : text;
    }
  }
  return undefined;
}
