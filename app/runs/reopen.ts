/**
 * Resuming an interrupted run (a crash, a kill) under its own id: it goes on from its log as the
 * crash left it, every call it made is answered from its own record, and only the rest is sent.
 * `society resume` and an eval that runs again (its cut-off items) both start from this plan.
 */
import { Cassette } from '../providers/cassette.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { editsInLog, type RunOptions } from '../runtime/engine.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import type { RunRecord, RunStore } from '../store/index.ts';
import { answersSimulated } from './continue.ts';
import { RunsError } from './errors.ts';
import { loadImages } from './record.ts';

/** Everything a resumption needs; the run is reopened in the store by the caller, once it is sure to go on. */
export interface ReopenPlan {
  /** Run options: its inputs and images, its record as a replay-then-live cassette, its log and edits. */
  options: Pick<
    RunOptions,
    'inputs' | 'blobs' | 'cassette' | 'continueFrom' | 'overrides' | 'messageEdits'
  >;
  /** The last event of its log: it goes on after this one. */
  afterSeq: number;
  /** Calls its record answers. */
  answered: number;
  /** New calls go to the simulator: asked for, or the run was simulated. */
  simulated: boolean;
}

/**
 * Plans going on with interrupted run `run`. Its images are loaded from the store into `blobs`
 * (a new blob store when none is given); throws a RunsError for an image neither holds.
 */
export function planReopen(
  store: RunStore,
  run: RunRecord,
  options: { simulate?: boolean; blobs?: BlobStore } = {},
): ReopenPlan {
  const blobs = options.blobs ?? new BlobStore();
  // An image the caller's blobs hold already (an eval job carries its own) is not missing.
  const missing = loadImages(store, blobs, run.inputs).filter(
    (name) => !blobs.get(blobHashOf(run.inputs[name]) ?? ''),
  );
  if (missing.length)
    throw new RunsError(`run ${run.id}: the store lacks the image for ${missing.join(', ')}`);
  const record = Cassette.fromJSON(store.callRecord(run.id), `run ${run.id}`);
  const logged = store.events(run.id);
  return {
    options: {
      inputs: run.inputs,
      blobs,
      cassette: { cassette: record, mode: 'replay-then-live' },
      continueFrom: logged,
      // A resumed fork keeps its edits: its record has no answer for an instance it did not run.
      ...editsInLog(logged),
    },
    afterSeq: logged.at(-1)?.seq ?? 0,
    answered: record.size,
    simulated: answersSimulated(run, options.simulate === true),
  };
}
