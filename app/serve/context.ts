/**
 * What both servers (HTTP in index.ts, stdio in stdio.ts) serve from: the societies by name and
 * the runner that runs them into the run store; and the one wait every follower of a run's
 * events starts with, for its start or its end.
 */
import type { ServeContext } from './api.ts';
import type { ServedSociety } from './catalog.ts';
import { type RunHandle, Runner, type RunnerOptions, type ServedRun } from './runs.ts';

/** A server's societies and runner, and how a reloaded document replaces its served version. */
export interface ServeSetup {
  ctx: ServeContext;
  runner: Runner;
  /** Serves `society` from now on in place of the one of its name (runs already started keep theirs). */
  replace(society: ServedSociety): void;
}

/** The context `societies` are served from, their runs run by a new runner with `options`. */
export function serveSetup(
  options: RunnerOptions & { societies: readonly ServedSociety[] },
): ServeSetup {
  const societies = new Map(options.societies.map((s) => [s.name, s]));
  const runner = new Runner(options);
  return {
    ctx: { societies, runner, store: options.store },
    runner,
    replace: (society) => {
      societies.set(society.name, society);
    },
  };
}

/**
 * The run once it has started, or undefined when it ended without starting (cancelled while it
 * waited for its slot, refused by the store) or `signal` aborted first. `served.started` alone
 * never resolves for a run that never starts: whoever follows a run's events waits on this.
 */
export function startedOrEnded(
  served: ServedRun,
  signal?: AbortSignal,
): Promise<RunHandle | undefined> {
  return Promise.race([
    served.started,
    served.done.then(() => undefined),
    ...(signal ? [aborted(signal).then(() => undefined)] : []),
  ]);
}

/** Resolves once `signal` aborts (at once when it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
