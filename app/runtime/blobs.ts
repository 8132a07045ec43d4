/**
 * Content-addressed storage for binary values (images). Values in the graph and events are
 * `{ $image: sha256, mime }` references; bytes live here once, however many nodes share them.
 */
import { createHash } from 'node:crypto';
import type { BlobValue, ImageValue } from '../schema/blob-refs.ts';

export class BlobStore {
  readonly #blobs = new Map<string, { bytes: Uint8Array; mime: string }>();

  /**
   * Stores any bytes: an image comes back as an image reference, anything else (audio, a 3D
   * asset) as `{ $blob: sha256, mime }`.
   */
  put(bytes: Uint8Array, mime: string): ImageValue | BlobValue {
    if (mime.startsWith('image/')) return this.putImage(bytes, mime);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (!this.#blobs.has(hash)) this.#blobs.set(hash, { bytes, mime });
    return { $blob: hash, mime };
  }

  /** Stores bytes and returns their reference. */
  putImage(bytes: Uint8Array, mime: string): ImageValue {
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (!this.#blobs.has(hash)) this.#blobs.set(hash, { bytes, mime });
    return { $image: hash, mime };
  }

  get(hash: string): { bytes: Uint8Array; mime: string } | undefined {
    return this.#blobs.get(hash);
  }

  /** A data URL for a stored image, as vision models accept. */
  dataUrl(image: ImageValue): string {
    const blob = this.#blobs.get(image.$image);
    if (!blob)
      throw new Error(`image ${image.$image.slice(0, 12)}… is not in this run's blob store`);
    return `data:${blob.mime};base64,${Buffer.from(blob.bytes).toString('base64')}`;
  }
}

/** The image MIME type for a file name (app/schema/mime.ts), for callers that import it here. */
export { imageMimeFor } from '../schema/mime.ts';
