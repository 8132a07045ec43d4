/**
 * The line a table command prints above its table: the parameter values its runs used, as each
 * variant's document was bound with them (the document every run of the variant records), not
 * a paper's defaults. Values every variant shares are listed once; those that differ are named
 * as set per row.
 */
import { formatValue, type ParamValue } from '../schema/params.ts';

/** One row of a table: a variant and the parameter values its runs used. */
export interface RanVariant {
  name: string;
  params: Readonly<Record<string, ParamValue>>;
}

/**
 * `ran with rounds=5, rtk=false, vlms=vlm-1,vlm-2,vlm-3; per row: structure`; undefined when
 * the documents declare no parameters.
 */
export function ranWithLine(variants: readonly RanVariant[]): string | undefined {
  const names = [...new Set(variants.flatMap((v) => Object.keys(v.params)))];
  if (names.length === 0) return undefined;
  const shared: string[] = [];
  const perRow: string[] = [];
  for (const name of names) {
    const shown = variants.map((v) =>
      Object.hasOwn(v.params, name) ? formatValue(v.params[name]!) : '–',
    );
    if (shown.every((s) => s === shown[0])) shared.push(`${name}=${shown[0]}`);
    else perRow.push(name);
  }
  return `ran with ${shared.join(', ') || 'the same parameters'}${perRow.length ? `; per row: ${perRow.join(', ')}` : ''}`;
}

/** The values each variant ran with, for `--json`: `{ monarchy: { rounds: 5, … }, … }`. */
export function ranWithJson(
  variants: readonly RanVariant[],
): Record<string, Readonly<Record<string, ParamValue>>> {
  return Object.fromEntries(variants.map((v) => [v.name, v.params]));
}
