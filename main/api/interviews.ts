/**
 * `run.interview` and `run.interviews`: a question put to one member of a run in its context at a
 * call (app/runs/interview.ts), of a run going here (held in the debugger) or a stored one. The
 * call goes through the backend's providers with the keys from the vault, which the page never
 * sees; the answer is kept as a side call, apart from the run's events and record.
 */
import { compileGraph } from '../../app/compiler/index.ts';
import { answersSimulated } from '../../app/runs/continue.ts';
import { InterviewError, interview, parseInterviewTarget } from '../../app/runs/interview.ts';
import type { GraphDocument } from '../../app/schema/document.ts';
import { type ApiContext, type ApiMethods, messageOf } from './context.ts';
import { ApiError } from './errors.ts';
import type { LiveRuns } from './live-runs.ts';
import { storedRun } from './stored-run.ts';

/** The `run.interview*` methods. */
export function interviewMethods(
  ctx: ApiContext,
  live: LiveRuns,
): ApiMethods<'run.interview' | 'run.interviews'> {
  const { store } = ctx;
  return {
    async 'run.interview'({ runId, instance, question }) {
      const going = live.get(runId);
      const record = storedRun(store, going?.run.id ?? runId);
      let doc: GraphDocument | undefined = going?.source?.compiled.doc;
      if (!doc) {
        const compiled = await compileGraph(record.documentText, await ctx.nodeRegistry());
        if (!compiled.ok) throw new ApiError(`run ${record.id} no longer compiles`);
        doc = compiled.doc;
      }
      const mode = going?.run.mode ?? record.mode;
      const { member, at } = parseInterviewTarget(instance);
      try {
        return await interview(
          {
            runId: record.id,
            events: going?.run.events ?? store.events(record.id),
            doc,
            store,
            blob: (hash) => going?.run.blobs.get(hash) ?? store.getBlob(hash),
          },
          member,
          at,
          question,
          {
            // A cassette holds no answer to a new question: a replay is asked of the simulator.
            simulate: answersSimulated({ mode }, false) || mode === 'replay',
            providerOverrides: ctx.storedOverrides(),
            env: ctx.runEnv(),
          },
        );
      } catch (error) {
        if (error instanceof InterviewError) throw new ApiError(error.message);
        throw new ApiError(`the question could not be answered: ${messageOf(error)}`);
      }
    },

    async 'run.interviews'({ runId }) {
      return store.interviews.ofRun(storedRun(store, runId).id);
    },
  };
}
