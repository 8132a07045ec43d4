/**
 * The evals the store holds (`evals.*`): the list with each one's table, and one eval with
 * every item × variant and the run that answered it, for the editor's Evals view. The tables
 * are added up here, from the item records, exactly as `society evals` and `eval-show` do, and
 * an eval stored with a paper layout (`config.table`) gets that layout printed by the same
 * presenter `eval-show` uses.
 */

import { summarize } from '../../app/eval/summary.ts';
import { presentTable } from '../../app/eval/table-presenters.ts';
import type { EvalItemRecord, EvalRecord, EvalSummary } from '../../app/eval/types.ts';
import { registerTableLayouts } from '../../app/paper-tables/index.ts';
import { AmbiguousEvalIdError, type RunStore } from '../../app/store/index.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';

// The studio loads no CLI command, so it declares the layouts' presenters itself (the CLI too).
registerTableLayouts();

/** The `evals.*` methods. */
export function evalMethods(ctx: ApiContext): ApiMethods<'evals.list' | 'evals.get'> {
  const { store } = ctx;
  return {
    async 'evals.list'({ limit }) {
      return store
        .listEvals(limit)
        .map((r) => summarize(r, store.evalItems(r.id), store.evalRatings(r.id)));
    },

    async 'evals.get'({ evalId }) {
      let record: EvalRecord | undefined;
      try {
        record = store.getEval(evalId);
      } catch (error) {
        if (error instanceof AmbiguousEvalIdError) throw new ApiError(error.message);
        throw error;
      }
      if (!record) throw new ApiError(`there is no eval "${evalId}"`);
      const items = store.evalItems(record.id);
      const summary = summarize(record, items, store.evalRatings(record.id));
      const paperTable = await paperLayout(store, record, summary, items);
      return { summary, items, ...(paperTable ? { paperTable } : {}) };
    },
  };
}

/**
 * The paper layout `record` names, as `society eval-show` prints it, reading its items' runs
 * from this store; undefined when it names none or a kind this version does not know. A layout
 * that fails to print (a malformed stored context) says why instead of hiding the eval.
 */
async function paperLayout(
  store: RunStore,
  record: EvalRecord,
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
): Promise<{ kind: string; text?: string; error?: string } | undefined> {
  const table = record.config.table;
  if (!table) return undefined;
  try {
    const text = await presentTable(table, summary, items, (runId) => store.getRun(runId)?.outputs);
    return text === undefined ? undefined : { kind: table.kind, text };
  } catch (error) {
    return { kind: table.kind, error: (error as Error).message };
  }
}
