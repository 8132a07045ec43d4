/**
 * A run's inputs from the values a program or a page sends for it, by name: the one reader the
 * served HTTP API and the studio's API share, each with its policy.
 *
 * - `API_VALUES` (the HTTP API's JSON): each value has its input's JSON type (text a string, a
 *   number a number, true/false a boolean, a list a list).
 * - `PAGE_VALUES` (the studio's Inputs form, a multipart form's plain fields): numbers,
 *   booleans, lists and JSON may also come typed as text, as on the command line; a file input's
 *   value `"example"` is the example the document itself carries (app/node-sdk/example.ts).
 *
 * A file (an image, a recording, a 3D asset) comes as a base64 `data:` URL or as an uploaded
 * file's bytes (`UploadedFile`), and goes into the run's blob store; an image is checked against
 * the run's pixel budget from its header before anything decodes it. A name that is an answer a
 * node lets a person give ahead (a human node's) sets that answer. Every refusal is a
 * `RunValueError` naming the input, so each caller says it its own way (a 400, a page message).
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import { checkImagePixels } from '../imageops/header.ts';
import { fileMimeFits, isFileModality } from '../node-sdk/example.ts';
import { runFields } from '../node-sdk/run-fields.ts';
import { isBlobValue, isImageValue } from '../schema/blob-refs.ts';
import { tooDeepAt } from '../schema/bounds.ts';
import { DOCUMENT_BOUNDS, resolveLimits } from '../schema/limits.ts';
import {
  BINARY_MIME_BY_EXTENSION,
  IMAGE_MIME_BY_EXTENSION,
  IMAGE_MIMES,
  readDataUrl,
  sniffMime,
} from '../schema/mime.ts';
import type { Modality } from '../schema/modality.ts';
import type { BlobStore } from './blobs.ts';
import { exampleRunValue, runExamples } from './examples.ts';

/** The value of a file input that means "the example the document carries for it". */
export const EXAMPLE_VALUE = 'example';

/** How values are read: what each caller's senders can give. */
export interface RunValuePolicy {
  /** Numbers, booleans, lists and JSON may come as text (a form's fields). */
  fromText: boolean;
  /** A file input's value `"example"` is the example the document carries. */
  examples: boolean;
  /** Largest file, in decoded bytes (none: the request's own size cap bounds it). */
  maxFileBytes?: number;
  /** How a person gives a file here, said when a file input gets something else. */
  fileHint: string;
}

/** The HTTP API's JSON: strict types. */
export const API_VALUES: RunValuePolicy = {
  fromText: false,
  examples: false,
  fileHint: 'send it as a data URL (data:MIME;base64,…) or as a multipart file part',
};

/** The studio's Inputs form: values typed as text, the document's example files. */
export const PAGE_VALUES: RunValuePolicy = {
  fromText: true,
  examples: true,
  maxFileBytes: 20 * 1024 * 1024,
  fileHint: 'pick a file (sent as a data: URL)',
};

/** A file sent as bytes (a multipart part): its declared type and file name, if any. */
export class UploadedFile {
  readonly bytes: Uint8Array;
  readonly mime: string;
  readonly filename: string | undefined;
  constructor(bytes: Uint8Array, mime: string, filename?: string) {
    this.bytes = bytes;
    this.mime = mime;
    this.filename = filename;
  }
}

/** A value that does not fit its input: `input` is the name the sender used. */
export class RunValueError extends Error {
  readonly input: string;
  constructor(input: string, message: string) {
    super(message);
    this.name = 'RunValueError';
    this.input = input;
  }
}

/** The engine's inputs and a person's answers given ahead, for one run. */
export interface RunValues {
  inputs: Record<string, unknown>;
  humanAnswers: Record<string, string>;
}

/**
 * Binds each value to a run input (by its name) or an answer given once, putting files into
 * `blobs`. Throws a RunValueError naming the input for a value that does not fit. Inputs left
 * out are not refused here: each caller says so in its own words (see missingRunInputs).
 */
export function readRunValues(
  values: Record<string, unknown>,
  plan: GraphPlan,
  blobs: BlobStore,
  policy: RunValuePolicy,
): RunValues {
  const fields = runFields(plan.nodes.values());
  const examples = policy.examples ? runExamples(plan.nodes.values()) : undefined;
  const maxPixels = resolveLimits(plan.doc.settings?.limits).imagePixels;
  const result: RunValues = { inputs: {}, humanAnswers: {} };
  for (const [name, value] of Object.entries(values)) {
    const modality = fields.inputs.get(name)?.modality;
    if (modality === undefined) {
      if (!fields.answers.has(name)) {
        const known = [...fields.inputs.keys(), ...fields.answers];
        throw new RunValueError(
          name,
          `unknown input "${name}"${known.length ? ` (this society takes: ${known.join(', ')})` : ' (this society takes no inputs)'}`,
        );
      }
      if (typeof value !== 'string')
        throw new RunValueError(name, `the answer for "${name}" must be text`);
      result.humanAnswers[name] = value;
      continue;
    }
    // A value shaped like a blob reference would point into a store only the backend fills.
    if (isImageValue(value) || isBlobValue(value))
      throw new RunValueError(name, `input "${name}": file references are not accepted`);
    if (isFileModality(modality)) {
      const example = value === EXAMPLE_VALUE ? examples?.get(name) : undefined;
      try {
        result.inputs[name] = example
          ? exampleRunValue(example, blobs, maxPixels)
          : readFile(name, value, modality, blobs, maxPixels, policy);
      } catch (error) {
        if (error instanceof RunValueError) throw error;
        // An image past the pixel budget, refused from its header before anything decodes it.
        throw new RunValueError(name, (error as Error).message);
      }
      continue;
    }
    if (value instanceof UploadedFile)
      throw new RunValueError(
        name,
        `input "${name}" takes ${modality}, not a file: send it as a plain field`,
      );
    result.inputs[name] = readValue(name, value, modality, policy);
  }
  return result;
}

function readValue(
  name: string,
  value: unknown,
  modality: string,
  policy: RunValuePolicy,
): unknown {
  if (modality === 'text') {
    if (typeof value !== 'string') throw new RunValueError(name, `input "${name}" must be text`);
    return value;
  }
  const text = policy.fromText && typeof value === 'string' ? value : undefined;
  if (modality === 'number') {
    const n = text !== undefined && text.trim() !== '' ? Number(text) : value;
    if (typeof n !== 'number' || !Number.isFinite(n))
      throw new RunValueError(name, `input "${name}" must be a number`);
    return n;
  }
  if (modality === 'boolean') {
    if (value === true || text === 'true') return true;
    if (value === false || text === 'false') return false;
    throw new RunValueError(name, `input "${name}" must be true or false`);
  }
  const structured = modality === 'json' || modality.startsWith('list<');
  let parsed = value;
  if (structured && text !== undefined) {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new RunValueError(name, `input "${name}" must be JSON: ${(error as Error).message}`);
    }
  }
  if (modality.startsWith('list<') && !Array.isArray(parsed))
    throw new RunValueError(name, `input "${name}" must be a list`);
  // Templates and the run store recurse through a value: its depth is bounded as a document's.
  if (structured && tooDeepAt(parsed, DOCUMENT_BOUNDS.maxDepth))
    throw new RunValueError(
      name,
      `input "${name}": nested too deep: a value nests at most ${DOCUMENT_BOUNDS.maxDepth} levels`,
    );
  return parsed;
}

const ACCEPTED_IMAGES = new Set(IMAGE_MIMES);
const GENERIC_MIMES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

function readFile(
  name: string,
  value: unknown,
  modality: Modality,
  blobs: BlobStore,
  maxPixels: number,
  policy: RunValuePolicy,
): unknown {
  const kind =
    modality === 'image' ? 'an image' : modality === 'audio' ? 'a recording' : 'a 3D asset';
  const noun = modality === 'image' ? 'image' : modality === 'audio' ? 'recording' : '3D asset';
  let bytes: Uint8Array;
  let mime: string;
  let filename: string | undefined;
  if (value instanceof UploadedFile) {
    ({ bytes, mime, filename } = value);
  } else {
    const url = typeof value === 'string' ? readDataUrl(value) : undefined;
    if (!url) {
      const none =
        value === EXAMPLE_VALUE && policy.examples
          ? `input "${name}": the document carries no example ${noun} for it`
          : `input "${name}" is ${kind}: ${policy.fileHint}`;
      throw new RunValueError(name, none);
    }
    mime = url.mime;
    bytes = new Uint8Array(Buffer.from(url.base64, 'base64'));
  }
  if (bytes.length === 0) throw new RunValueError(name, `input "${name}": the file is empty`);
  if (policy.maxFileBytes !== undefined && bytes.length > policy.maxFileBytes)
    throw new RunValueError(
      name,
      `input "${name}": the file is larger than ${policy.maxFileBytes >> 20} MB`,
    );
  mime = fileMime(mime, bytes, filename);
  if (modality === 'image') {
    if (!ACCEPTED_IMAGES.has(mime))
      throw new RunValueError(name, `input "${name}": ${mime} is not a PNG, JPEG, GIF or WebP`);
    checkImagePixels(bytes, maxPixels, `input "${name}"`);
    return blobs.putImage(bytes, mime);
  }
  if (!fileMimeFits(modality, mime))
    throw new RunValueError(name, `input "${name}" is ${kind}: ${mime} is not one`);
  return blobs.put(bytes, mime);
}

/**
 * The type of a file sent as "some bytes" (a form's file part from a client that does not know
 * the type): from its file name's extension, else from its first bytes.
 */
function fileMime(declared: string, bytes: Uint8Array, filename: string | undefined): string {
  const mime = declared.split(';')[0]!.trim().toLowerCase();
  if (!GENERIC_MIMES.has(mime)) return mime;
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename ?? '')?.[1]?.toLowerCase() ?? '';
  return IMAGE_MIME_BY_EXTENSION[ext] ?? BINARY_MIME_BY_EXTENSION[ext] ?? sniffMime(bytes) ?? mime;
}
