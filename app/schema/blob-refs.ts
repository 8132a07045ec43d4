/**
 * How bytes travel in run values: as content-addressed references into the run's blob store
 * (app/runtime/blobs.ts), never inlined. Pure functions, usable in the page too.
 */

/** Images travel as content-addressed references; see app/runtime/blobs.ts. */
export interface ImageValue {
  $image: string;
  mime: string;
}

/** Other bytes (audio, a 3D asset) travel the same way, under `$blob`. */
export interface BlobValue {
  $blob: string;
  mime: string;
}

export function isBlobValue(value: unknown): value is BlobValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BlobValue).$blob === 'string' &&
    typeof (value as BlobValue).mime === 'string'
  );
}

/** The content hash a binary reference (an image or other bytes) points to, else undefined. */
export function blobHashOf(value: unknown): string | undefined {
  return isImageValue(value) ? value.$image : isBlobValue(value) ? value.$blob : undefined;
}

export function isImageValue(value: unknown): value is ImageValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ImageValue).$image === 'string' &&
    typeof (value as ImageValue).mime === 'string'
  );
}
