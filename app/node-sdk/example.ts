/**
 * Example inputs a document carries. A document is data: shared, it must never make the program
 * read the reader's files, so an example file is not a path but the bytes themselves, embedded
 * as a `data:<mime>;base64,…` URL (templates' examples are a few KB). Text, numbers, booleans
 * and JSON are the value itself. Pure functions: the editor reads examples too.
 */
import { readDataUrl } from '../schema/mime.ts';
import { BINARY_MODALITIES, type Modality, parseModality } from '../schema/modality.ts';

/** An input's example, as its node declares it (see `NodeSpec.exampleInput`). */
export interface RunExample {
  /** The run input's name (`question`). */
  name: string;
  modality: Modality;
  /**
   * The value as the document holds it: text, a number, a boolean or JSON as the input takes
   * it; for an image, audio or 3D input a `data:` URL of the file.
   */
  value: unknown;
}

/** The most bytes one embedded example file may decode to: examples are small by design. */
export const MAX_EXAMPLE_BYTES = 1024 * 1024;

/** True for modalities whose values are files (blobs): their examples are data URLs. */
export function isFileModality(modality: Modality): boolean {
  const parsed = parseModality(modality);
  return parsed?.kind === 'scalar' && BINARY_MODALITIES.has(parsed.name);
}

/** MIME type families each file modality takes. */
const MIME_FAMILY: Record<string, (mime: string) => boolean> = {
  image: (mime) => mime.startsWith('image/'),
  audio: (mime) => mime.startsWith('audio/'),
  asset3d: (mime) => mime.startsWith('model/') || mime.startsWith('application/'),
};

/** True when a file of `mime` can be a value of the file modality `modality`. */
export function fileMimeFits(modality: Modality, mime: string): boolean {
  return MIME_FAMILY[modality]?.(mime) === true;
}

/**
 * Why `value` cannot be an example of a `modality` input, in words for a one-line problem; or
 * undefined when it can.
 */
export function exampleProblem(modality: Modality, value: unknown): string | undefined {
  if (isFileModality(modality)) {
    const url = typeof value === 'string' ? readDataUrl(value) : undefined;
    if (!url)
      return `an example ${modality} is embedded as a data: URL ("data:image/png;base64,…"), never a file path`;
    if (!MIME_FAMILY[modality]?.(url.mime))
      return `the example is ${url.mime}, which is not ${modality === 'asset3d' ? 'a 3D asset' : `an ${modality} type`}`;
    if (url.bytes > MAX_EXAMPLE_BYTES)
      return `the example file is ${url.bytes.toLocaleString('en-US')} bytes; an embedded example holds at most ${MAX_EXAMPLE_BYTES.toLocaleString('en-US')}`;
    return undefined;
  }
  if (modality === 'text' && typeof value !== 'string') return 'a text example must be a string';
  if (modality === 'number' && (typeof value !== 'number' || !Number.isFinite(value)))
    return 'a number example must be a number';
  if (modality === 'boolean' && typeof value !== 'boolean')
    return 'a boolean example must be true or false';
  if (modality.startsWith('list<') && !Array.isArray(value)) return 'a list example must be a list';
  return undefined;
}

/** How an example reads in one line: text quoted and clipped, a file as its type and size. */
export function describeExample(example: RunExample): string {
  const { value } = example;
  if (isFileModality(example.modality) && typeof value === 'string') {
    const url = readDataUrl(value);
    if (url) return `<${url.mime}, ${url.bytes.toLocaleString('en-US')} bytes>`;
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ');
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 79)}…` : line);
}
