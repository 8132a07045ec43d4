/**
 * The `ratings.*` methods: the Evals view's rating panel reads a run's ratings and stores one
 * person's scores of it, checked against the rubric of the eval the run answered, exactly as
 * `society rate` checks them (app/eval/rubrics.ts `scoreProblem`).
 */
import type { ApiRunRatings } from '../../app/api/ratings-contract.ts';
import type { Rubric } from '../../app/eval/rubrics.ts';
import { scoreProblem } from '../../app/eval/rubrics.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';
import { storedRun } from './stored-run.ts';

/** The `ratings.*` methods. */
export function ratingMethods(ctx: ApiContext): ApiMethods<'ratings.list' | 'ratings.put'> {
  const { store } = ctx;

  /** The run (by id or unique prefix) and the rubric of its eval, if it has one. */
  function ratedRun(idOrPrefix: string): { runId: string; rubric?: Rubric } {
    const runId = storedRun(store, idOrPrefix).id;
    const item = store.evalItemOfRun(runId);
    const rubric = item ? store.getEval(item.evalId)?.config.rubric : undefined;
    return { runId, ...(rubric ? { rubric } : {}) };
  }

  const answer = (run: { runId: string; rubric?: Rubric }): ApiRunRatings => ({
    ...run,
    ratings: store.ratingsOfRun(run.runId),
  });

  return {
    async 'ratings.list'({ runId }) {
      return answer(ratedRun(runId));
    },

    async 'ratings.put'({ runId: id, rater, scores, note }) {
      const run = ratedRun(id);
      const { runId } = run;
      if (!run.rubric)
        throw new ApiError(
          `run ${runId} is not an item of an eval with a rubric (give the eval one: society eval … --rubric itcma)`,
        );
      const problem = scoreProblem(run.rubric, scores);
      if (problem) throw new ApiError(problem);
      store.putRatings({ runId, rater, scores, ...(note ? { note } : {}) });
      return answer(run);
    },
  };
}
