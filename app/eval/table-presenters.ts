/**
 * Table layouts by kind. A command that fills a paper's table stores `config.table = { kind,
 * context }` with its eval, and declares how that kind is printed (its presenter module, in
 * app/paper-tables/index.ts, which the CLI and the studio both load). `society eval-show`,
 * `society eval-export` and the studio's Evals view then print the same layout again from the
 * stored items and that context, without knowing which paper it is.
 *
 * Presenters load lazily: registering one costs a closure, so `society --help` loads no table
 * code.
 */
import type { EvalItemRecord, EvalSummary } from './types.ts';

/** A run's outputs by its id, from the store the eval is in; undefined for a run it lacks. */
export type RunOutputs = (runId: string) => Record<string, unknown> | undefined;

/**
 * Prints an eval's table in a layout of its own (a paper's), from its items, its stored context
 * and, where the layout needs more than a score, what the items' runs gave (`outputs`).
 */
export type TablePresenter = (
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  context: unknown,
  outputs: RunOutputs,
) => string;

const presenters = new Map<string, () => Promise<TablePresenter>>();

/** Declares how tables of `kind` are printed; `load` imports the presenter when one is needed. */
export function registerTablePresenter(kind: string, load: () => Promise<TablePresenter>): void {
  presenters.set(kind, load);
}

/**
 * The layout an eval's record names (`config.table`), printed; undefined when it names none or a
 * kind nothing registered (an eval made by a newer version: its own table still prints).
 */
export async function presentTable(
  table: { kind: string; context?: unknown } | undefined,
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  outputs: RunOutputs = () => undefined,
): Promise<string | undefined> {
  const load = table ? presenters.get(table.kind) : undefined;
  if (!table || !load) return undefined;
  return (await load())(summary, items, table.context, outputs);
}
