/**
 * Runs the pure tasks nodes hand the engine (`NodeContext.compute`, app/node-sdk/compute.ts). A
 * light task runs at once on this thread; a heavy one on the thread pool (thread-pool.ts) within
 * the run's `computeMs`, its thread terminated past it or when the run is stopped. A failure is
 * one line naming what was computed: "its rules went past the 2,000 ms compute limit (…)".
 */
import { type ComputeTask, LIGHT_TASK_STEPS } from '../node-sdk/compute.ts';
import type { RunLimits } from '../schema/limits.ts';
import { POOL_HEAP_MB, runOnThread } from './thread-pool.ts';

/** A failure of a node's computation, in one line about the document. */
export class ComputeError extends Error {
  override name = 'ComputeError';
}

/**
 * The task's result for `input`; `what` names the computation in a failure ("its rules").
 * Rejects with a ComputeError, the task's own error, or the signal's reason once aborted.
 */
export async function runComputeTask<I, O>(
  task: ComputeTask<I, O>,
  input: I,
  what: string,
  limits: Pick<RunLimits, 'computeMs'>,
  signal?: AbortSignal,
): Promise<O> {
  signal?.throwIfAborted();
  if (task.steps(input) <= LIGHT_TASK_STEPS) return task.run(input);
  const ms = limits.computeMs;
  const value = await runOnThread(
    {
      request: { kind: 'task', module: task.module, name: task.name, input },
      ms,
      timeout: () =>
        new ComputeError(
          `${what} went past the ${ms.toLocaleString('en-US')} ms compute limit (settings.limits.computeMs)`,
        ),
      failure: (error) => new Error(error.message),
      gone: (outOfMemory) =>
        new ComputeError(
          outOfMemory
            ? `${what} ran out of memory (a computation may use ${POOL_HEAP_MB} MB)`
            : `${what} could not be computed: its thread stopped`,
        ),
      here: () => task.run(input),
    },
    signal,
  );
  return value as O;
}
