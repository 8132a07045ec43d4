/**
 * `society run --out DIR`: every output of a run as a file of its own, so a picture, a recording
 * or a 3D model can be opened with the program made for it. Text goes to `NAME.txt`, bytes to
 * `NAME.<ext>` (the extension from their MIME type), anything else to `NAME.json`; a list that
 * holds bytes gives one file per item (`NAME-1.png`, `NAME-2.png`…). A file already at a name is
 * replaced; a symlink at a name is replaced too, never followed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { blobHashOf } from '../schema/blob-refs.ts';
import { extensionForMime } from '../schema/mime.ts';
import { UsageError } from './errors.ts';
import { replaceFile } from './replace-file.ts';

/** Where bytes are found by their hash (the run's blob store, or the run store). */
export interface BlobSource {
  get(hash: string): { bytes: Uint8Array; mime: string } | undefined;
}

/** One file written: where, what it holds and its size. */
export interface WrittenOutput {
  path: string;
  output: string;
  mime: string;
  bytes: number;
}

/**
 * Writes `outputs` into `dir` (made when missing) and returns what it wrote, in output order.
 * An output whose bytes are not in `blobs` is skipped and named in `missing`.
 */
export function writeOutputFiles(
  dir: string,
  outputs: Record<string, unknown>,
  blobs: BlobSource,
): { written: WrittenOutput[]; missing: string[] } {
  makeOutputDir(dir);
  const written: WrittenOutput[] = [];
  const missing: string[] = [];
  const write = (output: string, stem: string, value: unknown) => {
    const file = fileFor(value, blobs);
    if (!file) {
      missing.push(output);
      return;
    }
    const path = join(dir, `${stem}.${file.ext}`);
    try {
      // A symlink already at that name is replaced, never followed (replace-file.ts).
      replaceFile(path, file.bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UsageError(`--out: cannot write ${path} (${code})`);
    }
    written.push({ path, output, mime: file.mime, bytes: file.bytes.byteLength });
  };
  for (const [name, value] of Object.entries(outputs)) {
    const stem = safeName(name);
    if (Array.isArray(value) && value.some((item) => blobHashOf(item))) {
      for (const [i, item] of value.entries()) write(`${name}[${i}]`, `${stem}-${i + 1}`, item);
    } else write(name, stem, value);
  }
  return { written, missing };
}

/** Makes the `--out` folder (and its parents) when missing; one that cannot be made ends with exit 2. */
export function makeOutputDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--out: cannot make the folder ${dir} (${code})`);
  }
}

/** The bytes, extension and type of one value's file; undefined when its bytes are missing. */
function fileFor(
  value: unknown,
  blobs: BlobSource,
): { bytes: Uint8Array; ext: string; mime: string } | undefined {
  const hash = blobHashOf(value);
  if (hash) {
    const blob = blobs.get(hash);
    return blob && { bytes: blob.bytes, ext: extensionForMime(blob.mime), mime: blob.mime };
  }
  if (typeof value === 'string')
    return { bytes: Buffer.from(value, 'utf8'), ext: 'txt', mime: 'text/plain' };
  return {
    bytes: Buffer.from(`${JSON.stringify(value ?? null, null, 2)}\n`, 'utf8'),
    ext: 'json',
    mime: 'application/json',
  };
}

/** An output name as a file name: letters, digits, `.`, `_` and `-` kept, the rest `_`. */
function safeName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return safe || 'output';
}

/**
 * Writes the outputs into `dir` and says on stderr what it wrote (stdout stays the outputs, or
 * `--json`'s object); false when an output's bytes were missing.
 */
export function writeOutputs(
  dir: string,
  outputs: Record<string, unknown>,
  blobs: BlobSource,
): boolean {
  const { written, missing } = writeOutputFiles(dir, outputs, blobs);
  for (const w of written)
    process.stderr.write(`wrote ${w.path} (${w.mime}, ${w.bytes.toLocaleString('en-US')} bytes)\n`);
  if (missing.length > 0)
    process.stderr.write(`society: --out: no bytes for ${missing.join(', ')}, not written\n`);
  return missing.length === 0;
}
