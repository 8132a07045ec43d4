/**
 * The evals the store holds (`evals.*`): the list with each one's table, and one eval with
 * every item × variant and the run that answered it, for the editor's Evals view. The tables
 * are added up here, from the item records, exactly as `society evals` and `eval-show` do.
 */
import { summarize } from '../../app/eval/summary.ts';
import type { EvalRecord } from '../../app/eval/types.ts';
import { AmbiguousEvalIdError } from '../../app/store/index.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';

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
      return { summary: summarize(record, items, store.evalRatings(record.id)), items };
    },
  };
}
