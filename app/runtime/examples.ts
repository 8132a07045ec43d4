/**
 * A document's example inputs as a run takes them (see app/node-sdk/example.ts): the command
 * line fills the inputs it was given no value for, and the studio's API resolves the Inputs
 * panel's "use the example" the same way. The examples come from the document alone.
 */

import { checkImagePixels } from '../imageops/header.ts';
import type { NodeSpec } from '../node-sdk/define.ts';
import { isFileModality, type RunExample } from '../node-sdk/example.ts';
import type { ImageValue } from '../schema/blob-refs.ts';
import { readDataUrl } from '../schema/mime.ts';
import type { BlobStore } from './blobs.ts';

/** The examples the nodes carry, by input name, in node order (the first of a name wins). */
export function runExamples(
  nodes: Iterable<{ spec: NodeSpec<unknown>; data: unknown }>,
): Map<string, RunExample> {
  const examples = new Map<string, RunExample>();
  for (const node of nodes) {
    const example = node.spec.exampleInput?.(node.data);
    if (example && !examples.has(example.name)) examples.set(example.name, example);
  }
  return examples;
}

/**
 * An example as the engine takes it: an embedded file decoded into `blobs` (a reference
 * then), any other value as it is. The node's check has already refused a malformed one. An
 * example image larger than `maxPixels` (the run's `settings.limits.imagePixels`, read from its
 * header) is refused with an ImageTooLargeError before anything decodes it.
 */
export function exampleRunValue(example: RunExample, blobs: BlobStore, maxPixels: number): unknown {
  if (!isFileModality(example.modality)) return example.value;
  const url = typeof example.value === 'string' ? readDataUrl(example.value) : undefined;
  if (!url) throw new Error(`the example of input "${example.name}" is not a data: URL`);
  const bytes = new Uint8Array(Buffer.from(url.base64, 'base64'));
  if (example.modality !== 'image') return blobs.put(bytes, url.mime);
  checkImagePixels(bytes, maxPixels, `the example of input "${example.name}" (from the document)`);
  return blobs.putImage(bytes, url.mime) satisfies ImageValue;
}
