/**
 * An eval bundle's manifest: what the folder holds and the sha256 of every file, so whoever
 * opens it knows nothing was changed since it was written (`society eval-import` refuses a
 * changed file, naming it).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The `format` a bundle's manifest names itself with. */
export const BUNDLE_FORMAT = 'society-eval-bundle';
export const BUNDLE_VERSION = 1;

/** A path inside the bundle: relative, forward slashes, never leaving the folder. */
const BundlePath = z
  .string()
  .regex(/^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._/-]+$/, 'not a plain path inside the bundle');

export const ManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_VERSION),
  eval: z.object({ id: z.string().min(1), name: z.string() }),
  /** The dataset the eval read: its file's name and the hash the eval recorded of it. */
  data: z.object({ file: z.string(), hash: z.string(), included: z.boolean() }),
  /** Per variant, the documents its runs ran (as run: parameters bound), as bundle paths. */
  documents: z.record(z.string(), z.array(BundlePath)),
  /** The run exports, one per item × variant run that finished. */
  runs: z.array(BundlePath),
  /** Every other file of the bundle with its sha256 (hex). */
  files: z.record(BundlePath, z.string().regex(/^[0-9a-f]{64}$/)),
});

export type BundleManifest = z.infer<typeof ManifestSchema>;

export const sha256Of = (bytes: string | Uint8Array): string =>
  createHash('sha256').update(bytes).digest('hex');
