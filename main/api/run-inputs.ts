/**
 * Turning the values the page sends for a run into the engine's inputs. The page has no file
 * system (S9), so an image input is given as one of:
 * - `"example"`: the example the document itself carries for that input (an input node's
 *   `example`, embedded in the document; see app/node-sdk/example.ts), decoded into the run's
 *   blob store. It comes from the document sent with the run, never from a file.
 * - a `data:image/png;base64,…` URL (PNG, JPEG, GIF or WebP) of an image the person picked.
 * Other inputs take their JSON value (numbers, booleans and JSON may also come as text, as on the
 * command line). A name that is an answer a node lets a person give ahead (a human node's) sets
 * that answer.
 */
import type { GraphPlan } from '../../app/compiler/analyze.ts';
import { checkImagePixels } from '../../app/imageops/header.ts';
import { runFields } from '../../app/node-sdk/run-fields.ts';
import type { BlobStore } from '../../app/runtime/blobs.ts';
import { exampleRunValue, runExamples } from '../../app/runtime/examples.ts';
import { isImageValue } from '../../app/schema/blob-refs.ts';
import { resolveLimits } from '../../app/schema/limits.ts';
import { IMAGE_MIMES } from '../../app/schema/mime.ts';
import { ApiError } from './errors.ts';

/** The value of a file input that means "the example the document carries for it". */
export const EXAMPLE_IMAGE = 'example';

/** Largest image accepted as a data URL (decoded bytes). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const ACCEPTED_IMAGES = new Set(IMAGE_MIMES);

/** The engine's inputs and human answers for a run. */
export interface PageRunInputs {
  inputs: Record<string, unknown>;
  humanAnswers: Record<string, string>;
}

/**
 * Binds each value to a run input (by its name) or an answer given once (a human node's),
 * putting images into `blobs`. Throws an ApiError naming the input for a value that does not
 * fit. Per-step answers (a dispatcher's seats) are asked while the run plays, not here.
 */
export function readPageInputs(
  values: Record<string, unknown>,
  plan: GraphPlan,
  blobs: BlobStore,
): PageRunInputs {
  const fields = runFields(plan.nodes.values());
  const examples = runExamples(plan.nodes.values());
  const maxPixels = resolveLimits(plan.doc.settings?.limits).imagePixels;
  const result: PageRunInputs = { inputs: {}, humanAnswers: {} };
  for (const [name, value] of Object.entries(values)) {
    const modality = fields.inputs.get(name)?.modality;
    if (modality === undefined) {
      if (!fields.answers.has(name)) {
        const known = [...fields.inputs.keys(), ...fields.answers];
        throw new ApiError(
          `unknown input "${name}"${known.length ? ` (this graph takes: ${known.join(', ')})` : ' (this graph takes no inputs)'}`,
        );
      }
      if (typeof value !== 'string') throw new ApiError(`the answer for "${name}" must be text`);
      result.humanAnswers[name] = value;
      continue;
    }
    const example = examples.get(name);
    try {
      result.inputs[name] =
        value === EXAMPLE_IMAGE && example
          ? exampleRunValue(example, blobs, maxPixels)
          : readValue(name, value, modality, blobs, maxPixels);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // An image past the pixel budget, refused from its header before anything decodes it.
      throw new ApiError((error as Error).message);
    }
  }
  return result;
}

function readValue(
  name: string,
  value: unknown,
  modality: string,
  blobs: BlobStore,
  maxPixels: number,
): unknown {
  // Image references point into a blob store the page cannot fill; only the backend makes them.
  if (isImageValue(value)) throw new ApiError(`input "${name}": image references are not accepted`);
  if (modality === 'image') return readImage(name, value, blobs, maxPixels);
  if (modality === 'text') {
    if (typeof value !== 'string') throw new ApiError(`input "${name}" must be text`);
    return value;
  }
  if (modality === 'number') {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n))
      throw new ApiError(`input "${name}" must be a number`);
    return n;
  }
  if (modality === 'boolean') {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw new ApiError(`input "${name}" must be true or false`);
  }
  if ((modality === 'json' || modality.startsWith('list<')) && typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch (error) {
      throw new ApiError(`input "${name}" must be JSON: ${(error as Error).message}`);
    }
  }
  return value;
}

function readImage(name: string, value: unknown, blobs: BlobStore, maxPixels: number): unknown {
  if (value === EXAMPLE_IMAGE)
    throw new ApiError(`input "${name}": the document carries no example image for it`);
  const match = typeof value === 'string' ? /^data:([\w/+.-]+);base64,/.exec(value) : null;
  if (!match || typeof value !== 'string') {
    throw new ApiError(
      `input "${name}" is an image: pick a PNG, JPEG, GIF or WebP file (sent as a data: URL)`,
    );
  }
  const mime = match[1]!.toLowerCase();
  if (!ACCEPTED_IMAGES.has(mime))
    throw new ApiError(`input "${name}": ${mime} is not a PNG, JPEG, GIF or WebP image`);
  const bytes = Buffer.from(value.slice(match[0].length), 'base64');
  if (bytes.length === 0) throw new ApiError(`input "${name}": the image is empty`);
  if (bytes.length > MAX_IMAGE_BYTES)
    throw new ApiError(`input "${name}": the image is larger than ${MAX_IMAGE_BYTES >> 20} MB`);
  checkImagePixels(bytes, maxPixels, `input "${name}"`);
  return blobs.putImage(new Uint8Array(bytes), mime);
}
