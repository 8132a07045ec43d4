/**
 * Reading `--input NAME=VALUE` and `NAME=@PATH` against what the graph takes: its run inputs
 * and the answers its nodes let a person give ahead (see app/node-sdk/run-fields.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import type { GraphPlan } from '../compiler/analyze.ts';
import { checkImagePixels } from '../imageops/header.ts';
import { describeExample } from '../node-sdk/example.ts';
import { isPerStepAnswer, runFields } from '../node-sdk/run-fields.ts';
import type { BlobStore } from '../runtime/blobs.ts';
import { exampleRunValue, runExamples } from '../runtime/examples.ts';
import { checkRunInputs } from '../runtime/inputs.ts';
import { tooDeepAt } from '../schema/bounds.ts';
import { DEFAULT_LIMITS, DOCUMENT_BOUNDS, resolveLimits } from '../schema/limits.ts';
import { BINARY_MIME_BY_EXTENSION, imageMimeFor } from '../schema/mime.ts';
import { splitAssignment } from './assignment.ts';
import { UsageError } from './errors.ts';

export { UsageError };

export interface RunInputs {
  inputs: Record<string, unknown>;
  humanAnswers: Record<string, string>;
}

/**
 * Binds each `--input` to a run input (by its name) or an answer a person gives ahead (a human
 * node's by its name, a seat's per step as `agent1@t3`). `@PATH` reads a file: images by
 * extension into the blob store, JSON inputs parsed, text as is.
 */
export function readRunInputs(assignments: string[], plan: GraphPlan, blobs: BlobStore): RunInputs {
  const fields = runFields(plan.nodes.values());
  const result: RunInputs = { inputs: {}, humanAnswers: {} };
  for (const assignment of assignments) {
    const [name, raw] = splitAssignment(assignment, '--input');
    const input = fields.inputs.get(name);
    if (!input && !fields.answers.has(name) && !isPerStepAnswer(fields, name)) {
      const known = [
        ...fields.inputs.keys(),
        ...fields.answers,
        ...[...fields.perStep].map((seat) => `${seat}@tSTEP`),
      ];
      throw new UsageError(
        `unknown input "${name}"${known.length ? ` (this graph takes: ${known.join(', ')})` : ' (this graph takes no inputs)'}`,
      );
    }
    if (!input) {
      result.humanAnswers[name] = raw.startsWith('@') ? readText(raw.slice(1), name) : raw;
      continue;
    }
    result.inputs[name] = readValue(name, raw, input.modality, blobs, imagePixelsOf(plan));
  }
  return result;
}

/** The most pixels an image may have in a run of this plan (`settings.limits.imagePixels`). */
export function imagePixelsOf(plan: GraphPlan): number {
  return resolveLimits(plan.doc.settings?.limits).imagePixels;
}

/**
 * Fills each run input no `--input` named with the example its document carries (a template's:
 * what its cassette was recorded with). Returns one line per example used, for stderr:
 * `using the example input question="…" (from the document)`.
 */
export function fillExamples(given: RunInputs, plan: GraphPlan, blobs: BlobStore): string[] {
  const used: string[] = [];
  for (const [name, example] of runExamples(plan.nodes.values())) {
    if (Object.hasOwn(given.inputs, name)) continue;
    try {
      given.inputs[name] = exampleRunValue(example, blobs, imagePixelsOf(plan));
    } catch (error) {
      // The document's own example does not fit the run: refused before anything is recorded.
      throw new UsageError((error as Error).message);
    }
    used.push(`using the example input ${name}=${describeExample(example)} (from the document)`);
  }
  return used;
}

/**
 * The pre-run check of a run's inputs, before anything is recorded: every run input has a value
 * (given, or the input's default) of the right kind. A run that lacks one ends the command with
 * exit 2 and one line naming it, and the run store gets nothing. Inputs with an example in the
 * document were filled by `fillExamples` before this.
 */
export function completeRunInputs(plan: GraphPlan, inputs: Record<string, unknown>): void {
  try {
    checkRunInputs(plan, inputs);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function readValue(
  name: string,
  raw: string,
  modality: string,
  blobs: BlobStore,
  imagePixels: number,
): unknown {
  return readInputValue(
    name,
    raw.startsWith('@') ? { path: raw.slice(1) } : { text: raw },
    modality,
    blobs,
    imagePixels,
  );
}

/**
 * One run input's value of `modality`, from a text or a file: images, recordings and 3D assets
 * into the blob store, JSON parsed, numbers and booleans checked. Used for `--input` and for a
 * dataset's fields. An image of more than `imagePixels` pixels (by its header) is refused
 * before anything decodes it.
 */
export function readInputValue(
  name: string,
  source: { text: string } | { path: string },
  modality: string,
  blobs: BlobStore,
  imagePixels: number = DEFAULT_LIMITS.imagePixels,
): unknown {
  const fromFile = 'path' in source;
  const path = 'path' in source ? source.path : '';
  const raw = 'text' in source ? source.text : '';
  if (modality === 'image') {
    if (!fromFile)
      throw new UsageError(
        `input "${name}" is an image: pass a file with --input ${name}=@photo.png`,
      );
    const mime = imageMimeFor(path);
    if (!mime)
      throw new UsageError(`input "${name}": "${path}" is not a PNG, JPEG, GIF or WebP file`);
    const bytes = readBytes(path, name);
    try {
      checkImagePixels(bytes, imagePixels, `input "${name}" (${path})`);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    return blobs.putImage(bytes, mime);
  }
  if (modality === 'audio' || modality === 'asset3d') {
    if (!fromFile)
      throw new UsageError(
        `input "${name}" is ${modality === 'audio' ? 'a recording' : 'a 3D asset'}: pass a file with --input ${name}=@${modality === 'audio' ? 'speech.wav' : 'model.glb'}`,
      );
    return blobs.put(readBytes(path, name), binaryMimeFor(path, modality));
  }
  const text = fromFile ? readText(path, name) : raw;
  if (modality === 'json' || modality.startsWith('list<')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`input "${name}" must be JSON: ${(error as Error).message}`);
    }
    // Parsed at any depth, but templates and the run store recurse through it.
    if (tooDeepAt(value, DOCUMENT_BOUNDS.maxDepth))
      throw new UsageError(
        `input "${name}": nested too deep: a value nests at most ${DOCUMENT_BOUNDS.maxDepth} levels`,
      );
    return value;
  }
  if (modality === 'number') {
    const n = Number(text);
    if (text.trim() === '' || Number.isNaN(n))
      throw new UsageError(`input "${name}" must be a number, got "${text}"`);
    return n;
  }
  if (modality === 'boolean') {
    if (text !== 'true' && text !== 'false')
      throw new UsageError(`input "${name}" must be true or false`);
    return text === 'true';
  }
  return text;
}

/** The MIME type of an audio or 3D file, from its extension. */
function binaryMimeFor(path: string, modality: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  return (
    BINARY_MIME_BY_EXTENSION[ext] ??
    (modality === 'audio' ? 'audio/wav' : 'application/octet-stream')
  );
}

function readBytes(path: string, name: string): Uint8Array {
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(
      `input "${name}": cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

function readText(path: string, name: string): string {
  return Buffer.from(readBytes(path, name)).toString('utf8');
}
