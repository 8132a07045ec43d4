/**
 * The runs going in this backend: each recorded in the store as it goes (exactly as
 * `society run` records one) and its events pushed, redacted, to every listener.
 */
import type { RunEventPush } from '../../app/api/contract.ts';
import type { CompiledGraph } from '../../app/compiler/index.ts';
import { recordEvents } from '../../app/runs/record.ts';
import type { Run } from '../../app/runtime/engine.ts';
import type { RunEvent } from '../../app/runtime/events.ts';
import type { RunStore } from '../../app/store/index.ts';
import { type ApiContext, messageOf } from './context.ts';
import { ApiError } from './errors.ts';

/** What a run was started from: what going live at an edit under its replay is weighed on. */
export interface RunSource {
  compiled: CompiledGraph;
  inputs: Record<string, unknown>;
}

/** A run going in this backend. */
export interface LiveRun {
  run: Run;
  source?: RunSource;
  /** Settles once the run's end is in the store. */
  done: Promise<void>;
}

/** The runs going, and who hears of their events. */
export interface LiveRuns {
  /**
   * Records a started run in the store and pushes its events to the listeners. `prior` is the
   * part of a parent's log a fork keeps: written first, and pushed first so the page sees it too.
   */
  track(run: Run, prior?: RunEvent[], source?: RunSource): void;
  /** A run going here, or a refusal the page can show (naming the run's stored status). */
  find(runId: string): LiveRun;
  get(runId: string): LiveRun | undefined;
  has(runId: string): boolean;
  /** Ids of the runs still going. */
  ids(): string[];
  /** Tells `listener` every event of every run, redacted. Returns the unsubscribe function. */
  onRunEvent(listener: (push: RunEventPush) => void): () => void;
  /** Cancels the runs still going and waits until they are recorded. */
  close(): Promise<void>;
}

export function createLiveRuns(ctx: ApiContext): LiveRuns {
  const { store, redactor, log } = ctx;
  const listeners = new Set<(push: RunEventPush) => void>();
  const live = new Map<string, LiveRun>();

  const publish = (runId: string, event: RunEvent) => {
    // Recorded events are already redacted with the run's keys; a key entered since is too.
    const push: RunEventPush = {
      push: 'run.event',
      runId,
      event: redactor.apply(event) as unknown as Record<string, unknown>,
    };
    for (const listener of listeners) {
      try {
        listener(push);
      } catch (error) {
        log(redactor.text(`society studio: a run event listener failed: ${messageOf(error)}`));
      }
    }
  };

  const track = (run: Run, prior: RunEvent[] = [], source?: RunSource) => {
    const runId = run.id;
    // The page learns the run id from this method's response, so its events are held until
    // the response has gone out (the server sends it before the next turn of the event loop).
    let announced = false;
    const held: RunEvent[] = prior.map((event) => ({ ...event, runId }));
    const deliver = (event: RunEvent) => {
      if (announced) publish(runId, event);
      else held.push(event);
    };
    setImmediate(() => {
      announced = true;
      for (const event of held.splice(0)) publish(runId, event);
    });
    // run.finished is told once the store has the run's end, so a page that reacts to it by
    // reading the run finds it finished.
    let finished: RunEvent | undefined;
    const finish = recordEvents(
      store,
      run,
      (event) => {
        if (event.type === 'run.finished') finished = event;
        else deliver(event);
      },
      prior,
    );
    const done = run.result.then((result) => {
      try {
        finish(result);
      } catch (error) {
        log(
          redactor.text(
            `society studio: cannot record the end of run ${runId}: ${messageOf(error)}`,
          ),
        );
      }
      live.delete(runId);
      if (finished) deliver(finished);
    });
    live.set(runId, { run, done, ...(source ? { source } : {}) });
  };

  const find = (runId: string): LiveRun => {
    const entry = live.get(runId);
    if (entry) return entry;
    let stored: ReturnType<RunStore['getRun']>;
    try {
      stored = store.getRun(runId);
    } catch {
      stored = undefined;
    }
    if (stored && stored.id === runId)
      throw new ApiError(`run ${runId} is not running here (it is ${stored.status})`);
    throw new ApiError(`there is no running run "${runId}"`);
  };

  return {
    track,
    find,
    get: (runId) => live.get(runId),
    has: (runId) => live.has(runId),
    ids: () => [...live.keys()],
    onRunEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      const runs = [...live.values()];
      for (const { run } of runs) run.cancel();
      await Promise.all(runs.map((r) => r.done));
    },
  };
}
