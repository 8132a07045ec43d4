/**
 * Continuing a run that failed or was cancelled, once the cause is fixed: a new run, recorded
 * as a fork of it at the failure with no edits, that starts from its log without the failure
 * (app/runtime/failure-trail.ts), answers every call it answered from its own record, and sends
 * only the rest. The ended run stays as it ended (its status, error and cost), so its history,
 * `society show` and earlier forks of it still say what happened. `society resume` and the
 * studio's "Retry from the failure" both start from this plan.
 */
import type { CompiledGraph } from '../compiler/index.ts';
import { Cassette } from '../providers/cassette.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { editsInLog, type RunOptions } from '../runtime/engine.ts';
import type { RunEvent } from '../runtime/events.ts';
import { continuedLog } from '../runtime/failure-trail.ts';
import type { NewRun, RunRecord, RunStore } from '../store/index.ts';
import { RunsError } from './errors.ts';
import { loadImages } from './record.ts';

/** Everything a continuation needs to be recorded and started. */
export interface ContinuationPlan {
  /** The ended run's events the continuation starts with. */
  kept: RunEvent[];
  /** The continuation's record in the store, without its id (a fork of the ended run). */
  record: Omit<NewRun, 'id'>;
  /** Run options; the caller adds its own (registry, prices, providers, env). */
  options: Pick<
    RunOptions,
    'inputs' | 'blobs' | 'cassette' | 'continueFrom' | 'overrides' | 'messageEdits'
  >;
  /** New calls go to the simulator: asked for, or the ended run was simulated. */
  simulated: boolean;
  /** Calls (model and expert) the record answers. */
  answered: number;
}

/** Why a run cannot be continued: what the caller may offer instead depends on it. */
export interface ContinuationRefusal {
  /** Still going; succeeded (a fork runs it again from a point); a replay, whose new calls must be simulated. */
  reason: 'running' | 'succeeded' | 'replay';
  /** One line for the person who asked. */
  message: string;
}

/**
 * Why run `run` cannot be continued, or undefined when it can: it is still going, it
 * succeeded, or it replayed a cassette (which never calls a provider) and new calls were not
 * asked to be simulated.
 */
export function continuationRefusal(
  run: RunRecord,
  simulate: boolean,
): ContinuationRefusal | undefined {
  if (run.status === 'running')
    return {
      reason: 'running',
      message: `run ${run.id} is still running in another process; wait for it or stop it first`,
    };
  if (run.status === 'succeeded')
    return {
      reason: 'succeeded',
      message: `run ${run.id} succeeded; there is nothing to continue`,
    };
  if (run.mode === 'replay' && !simulate)
    return {
      reason: 'replay',
      message: `run ${run.id} replayed a cassette, which never calls a provider; continue it with simulated answers, or start a live run`,
    };
  return undefined;
}

/** Plans the continuation of a failed or cancelled run; throws a RunsError for images the store lacks. */
export function planContinuation(
  store: RunStore,
  run: RunRecord,
  compiled: Extract<CompiledGraph, object>,
  simulate: boolean,
): ContinuationPlan {
  const blobs = new BlobStore();
  const missing = loadImages(store, blobs, run.inputs);
  if (missing.length)
    throw new RunsError(`run ${run.id}: the store lacks the image for ${missing.join(', ')}`);
  const { kept, sharedUpTo } = continuedLog(store.events(run.id));
  const calls = store.callRecord(run.id);
  // A replay never called a provider: what it lacks is simulated (continuationRefusal asks).
  const simulated = answersSimulated(run, simulate) || run.mode === 'replay';
  return {
    kept,
    record: {
      document: compiled.doc,
      documentText: run.documentText,
      compilerVersion: compiled.machines.compilerVersion,
      mode: simulated ? 'replay-then-simulated' : 'replay-then-live',
      inputs: run.inputs,
      parentRunId: run.id,
      forkSeq: sharedUpTo,
    },
    options: {
      inputs: run.inputs,
      blobs,
      cassette: { cassette: Cassette.fromJSON(calls, `run ${run.id}`), mode: 'replay-then-live' },
      continueFrom: kept,
      // A continued fork keeps its edits: its record has no answer for an instance it did not run.
      ...editsInLog(kept),
    },
    simulated,
    answered: [...calls.entries, ...(calls.experts ?? []), ...(calls.tools ?? [])].reduce(
      (n, entry) => n + entry.responses.length,
      0,
    ),
  };
}

/**
 * Whether the new calls of a run taken up again (resumed or continued) go to the simulator:
 * asked for, or the run itself answered with the simulator.
 */
export function answersSimulated(run: Pick<RunRecord, 'mode'>, simulate: boolean): boolean {
  return simulate || run.mode === 'simulated' || run.mode === 'replay-then-simulated';
}
