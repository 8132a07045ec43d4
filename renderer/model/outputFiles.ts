/**
 * Run outputs as files to download: text as .txt, JSON values as .json, and bytes an output
 * points to (an image, audio, a 3D asset) under an extension for their type.
 */
import { blobHashOf } from '../../app/schema/blob-refs.ts';
import { extensionForMime } from '../../app/schema/mime.ts';

/** How one output is downloaded. */
export type OutputFile =
  | { kind: 'text'; fileName: string; text: string; mime: 'text/plain' | 'application/json' }
  | { kind: 'blob'; fileName: string; hash: string; mime: string };

/** A file name's stem from an output name: letters, digits, dots, dashes and underscores. */
function stem(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'output';
}

export function outputFile(name: string, value: unknown): OutputFile {
  const hash = blobHashOf(value);
  if (hash !== undefined) {
    const mime = (value as { mime: string }).mime;
    return { kind: 'blob', fileName: `${stem(name)}.${extensionForMime(mime)}`, hash, mime };
  }
  if (typeof value === 'string')
    return { kind: 'text', fileName: `${stem(name)}.txt`, text: value, mime: 'text/plain' };
  return {
    kind: 'text',
    fileName: `${stem(name)}.json`,
    text: `${JSON.stringify(value, null, 2)}\n`,
    mime: 'application/json',
  };
}
