/**
 * An eval's identity. The same documents, data and options give the same id, so running the same
 * command again resumes the same eval (its finished items are kept) and changing any of them
 * starts another. Every command that fills a table (`society eval`, `nlsom eval`, `itcma eval`,
 * `openagi eval`, `cuisineworld sweep`) names its eval through this file; `--repeats N` above 1
 * makes another eval from that id (repeats.ts), so an eval run once keeps the id it had.
 */
import { canonicalJson, sha256Hex } from '../providers/canonical.ts';
import type { EvalConfig } from './types.ts';

/** The id of the eval that `key` describes: any JSON value; the order of object keys does not count. */
export function evalIdentity(key: unknown): string {
  return sha256Hex(canonicalJson(key)).slice(0, 16);
}

/**
 * The id of an eval of documents over a data set (`society eval` and the commands built on it):
 * each variant's document, the data, how rows map to inputs, the scorer, the variants, the limit,
 * the mode and the cassette.
 */
export function evalIdOf(
  config: EvalConfig,
  variants: readonly { readonly documentHash: string }[],
): string {
  return evalIdentity({
    documents: variants.map((v) => v.documentHash),
    data: config.dataHash,
    map: config.map,
    expect: config.expect ?? null,
    output: config.output ?? null,
    scorer: config.scorer,
    variants: config.variants,
    limit: config.limit ?? null,
    mode: config.mode,
    cassette: config.cassette ?? null,
  });
}
