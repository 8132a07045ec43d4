/**
 * A served run's inputs from a request's JSON: each value checked against the modality of the
 * input it names, files (images, recordings, 3D assets) given as base64 `data:` URLs into the
 * run's blob store. A value that does not fit is a 400 naming `inputs.NAME`.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import { checkImagePixels } from '../imageops/header.ts';
import { runFields } from '../node-sdk/run-fields.ts';
import type { BlobStore } from '../runtime/blobs.ts';
import { missingRunInputs } from '../runtime/inputs.ts';
import { resolveLimits } from '../schema/limits.ts';
import { IMAGE_MIMES, readDataUrl } from '../schema/mime.ts';
import { HttpError } from './errors.ts';

/** The engine's inputs and a person's answers given ahead (a human node's), for one run. */
export interface ServedInputs {
  inputs: Record<string, unknown>;
  humanAnswers: Record<string, string>;
}

/** Reads `values` against what `plan` takes; throws a 400 `HttpError` naming the field. */
export function readServedInputs(
  values: Record<string, unknown>,
  plan: GraphPlan,
  blobs: BlobStore,
): ServedInputs {
  const fields = runFields(plan.nodes.values());
  const maxPixels = resolveLimits(plan.doc.settings?.limits).imagePixels;
  const result: ServedInputs = { inputs: {}, humanAnswers: {} };
  for (const [name, value] of Object.entries(values)) {
    const field = `inputs.${name}`;
    const modality = fields.inputs.get(name)?.modality;
    if (modality === undefined) {
      if (!fields.answers.has(name)) {
        const known = [...fields.inputs.keys(), ...fields.answers];
        throw new HttpError(
          400,
          `unknown input "${name}"${known.length ? ` (this society takes: ${known.join(', ')})` : ' (this society takes no inputs)'}`,
          field,
        );
      }
      if (typeof value !== 'string')
        throw new HttpError(400, `the answer "${name}" must be text`, field);
      result.humanAnswers[name] = value;
      continue;
    }
    result.inputs[name] = readValue(name, value, modality, blobs, maxPixels);
  }
  const missing = missingRunInputs(plan, result.inputs);
  if (missing.length > 0)
    throw new HttpError(400, `missing input "${missing[0]}"`, `inputs.${missing[0]}`);
  return result;
}

function readValue(
  name: string,
  value: unknown,
  modality: string,
  blobs: BlobStore,
  maxPixels: number,
): unknown {
  const field = `inputs.${name}`;
  if (modality === 'image' || modality === 'audio' || modality === 'asset3d')
    return readFile(name, value, modality, blobs, maxPixels);
  if (modality === 'text') {
    if (typeof value !== 'string') throw new HttpError(400, `input "${name}" must be text`, field);
    return value;
  }
  if (modality === 'number') {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new HttpError(400, `input "${name}" must be a number`, field);
    return value;
  }
  if (modality === 'boolean') {
    if (typeof value !== 'boolean')
      throw new HttpError(400, `input "${name}" must be true or false`, field);
    return value;
  }
  if (modality.startsWith('list<') && !Array.isArray(value))
    throw new HttpError(400, `input "${name}" must be a list`, field);
  // A value shaped like a blob reference would point into a store only the server fills.
  if (value && typeof value === 'object' && ('$image' in value || '$blob' in value))
    throw new HttpError(400, `input "${name}": file references are not accepted`, field);
  return value;
}

const ACCEPTED_IMAGES = new Set(IMAGE_MIMES);

function readFile(
  name: string,
  value: unknown,
  modality: string,
  blobs: BlobStore,
  maxPixels: number,
): unknown {
  const field = `inputs.${name}`;
  const url = typeof value === 'string' ? readDataUrl(value) : undefined;
  if (!url)
    throw new HttpError(
      400,
      `input "${name}" is ${modality === 'image' ? 'an image' : 'a file'}: send it as a data URL (data:MIME;base64,…)`,
      field,
    );
  const { mime } = url;
  const bytes = new Uint8Array(Buffer.from(url.base64, 'base64'));
  if (bytes.length === 0) throw new HttpError(400, `input "${name}" is empty`, field);
  if (modality !== 'image') return blobs.put(bytes, mime);
  if (!ACCEPTED_IMAGES.has(mime))
    throw new HttpError(400, `input "${name}": ${mime} is not a PNG, JPEG, GIF or WebP`, field);
  try {
    checkImagePixels(bytes, maxPixels, `input "${name}"`);
  } catch (error) {
    throw new HttpError(400, (error as Error).message, field);
  }
  return blobs.putImage(bytes, mime);
}
