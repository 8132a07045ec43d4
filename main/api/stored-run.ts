/** Finding a stored run for a method that names one, by id or unique prefix. */
import type { RunRecord, RunStore } from '../../app/store/index.ts';
import { messageOf } from './context.ts';
import { ApiError } from './errors.ts';

/** A stored run by id or unique prefix; a refusal the page can show otherwise. */
export function storedRun(store: RunStore, runId: string): RunRecord {
  let run: RunRecord | undefined;
  try {
    run = store.getRun(runId);
  } catch (error) {
    throw new ApiError(messageOf(error));
  }
  if (!run) throw new ApiError(`there is no run "${runId}"`);
  return run;
}
