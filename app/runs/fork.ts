/**
 * Forking a stored run: a new run that keeps its parent's events up to a point, answers every
 * call whose prompt is unchanged from the parent's own record, and goes live only where an edit
 * changes what is asked. `society fork` and the editor's `runs.fork` both start from this plan.
 */
import type { CompiledGraph } from '../compiler/index.ts';
import { Cassette } from '../providers/cassette.ts';
import type { CassetteFile } from '../providers/cassette-file.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { editsInLog, type RunOptions } from '../runtime/engine.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { NewRun, RunRecord, RunStore } from '../store/index.ts';
import { RunsError } from './errors.ts';
import { loadImages } from './record.ts';

/** Where to fork and what to change: texts by node instance id, e.g. `member#1@r2`. */
export interface ForkRequest {
  edits: Record<string, string>;
  /** Keep the parent's events before this one (default: where the first edited instance started). */
  at?: number;
  /** Ask the simulator, not a model, for the fork's new calls (a simulated parent implies it). */
  simulate?: boolean;
}

/** Everything a fork needs to be recorded and started. */
export interface ForkPlan {
  /** The first event of the parent's log that is not kept. */
  at: number;
  /** The parent's events the fork starts with. */
  kept: RunEvent[];
  /** The fork's record in the store, without its id. */
  record: Omit<NewRun, 'id'>;
  /**
   * Run options: the parent's inputs and images, its record of calls as a replay-then-live
   * cassette, the kept log and the edits. The caller adds its own (registry, prices, providers).
   */
  options: Pick<
    RunOptions,
    'inputs' | 'blobs' | 'cassette' | 'continueFrom' | 'overrides' | 'messageEdits' | 'toolEdits'
  >;
  /**
   * The fork's new calls are simulated (labelled as such): asked for, or the parent's answers were
   * (a simulated run, or a replay of a simulated cassette).
   */
  simulated: boolean;
}

/**
 * Checks a fork request against the parent's log and plans the fork. Throws a RunsError naming
 * what is wrong: an instance the run does not have, a fork point out of range or after an
 * edited instance started, or images the store lacks.
 */
export function planFork(
  store: RunStore,
  parent: RunRecord,
  compiled: Extract<CompiledGraph, object>,
  request: ForkRequest,
): ForkPlan {
  const events = store.events(parent.id);
  const startedAt = (instance: string) =>
    events.find((e) => e.type === 'node.started' && e.instance === instance)?.seq;
  const overrides: Record<string, { text: string }> = {};
  for (const [instance, text] of Object.entries(request.edits)) {
    if (startedAt(instance) === undefined) {
      const known = [...new Set(events.flatMap((e) => (e.type === 'message' ? [e.from] : [])))];
      throw new RunsError(
        `run ${parent.id} has no node instance "${instance}" (messages came from: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', …' : ''})`,
      );
    }
    // An edit replaces the node's `text` output; a node whose message only reports on its work
    // (a planner: its outputs are an answer and a plan) has nothing the edit could replace.
    const finished = events.find((e) => e.type === 'node.finished' && e.instance === instance);
    if (finished?.type === 'node.finished' && !('text' in finished.outputs)) {
      throw new RunsError(
        `${instance} has no text output to edit (its outputs: ${Object.keys(finished.outputs).join(', ') || 'none'})`,
      );
    }
    overrides[instance] = { text };
  }
  let at: number;
  if (request.at !== undefined) {
    at = request.at;
    const last = events.at(-1)?.seq ?? 0;
    if (!Number.isInteger(at) || at < 2 || at > last + 1) {
      throw new RunsError(
        `the fork point must be an event number from 2 to ${last + 1} (run ${parent.id} has ${last} events)`,
      );
    }
  } else if (Object.keys(overrides).length > 0) {
    at = Math.min(...Object.keys(overrides).map((i) => startedAt(i)!));
  } else {
    throw new RunsError('say where to fork: an event number, or an edit');
  }
  for (const instance of Object.keys(overrides)) {
    const started = startedAt(instance)!;
    if (started < at)
      throw new RunsError(
        `${instance} started at event ${started}, before the fork point ${at}; fork earlier to edit it`,
      );
  }
  const blobs = new BlobStore();
  const missing = loadImages(store, blobs, parent.inputs);
  if (missing.length)
    throw new RunsError(`run ${parent.id}: the store lacks the image for ${missing.join(', ')}`);
  const kept = events.filter((e) => e.seq < at && e.type !== 'run.finished');
  // The parent's own edits before the fork point stand (a fork of a fork, of a debugged run):
  // its record has no answer for an instance it did not run.
  const earlier = editsInLog(kept);
  const calls = store.callRecord(parent.id);
  const simulated =
    request.simulate === true || parent.mode === 'simulated' || answeredBySimulator(calls);
  return {
    at,
    kept,
    record: {
      document: compiled.doc,
      documentText: parent.documentText,
      compilerVersion: compiled.machines.compilerVersion,
      mode: simulated ? 'replay-then-simulated' : 'replay-then-live',
      inputs: parent.inputs,
      parentRunId: parent.id,
      forkSeq: at - 1,
    },
    options: {
      inputs: parent.inputs,
      blobs,
      cassette: {
        cassette: Cassette.fromJSON(calls, `run ${parent.id}`),
        mode: 'replay-then-live',
      },
      continueFrom: kept,
      overrides: { ...earlier.overrides, ...overrides },
      messageEdits: earlier.messageEdits,
      toolEdits: earlier.toolEdits,
    },
    simulated,
  };
}

/**
 * True when every model answer in a run's record came from the simulated provider: a simulated
 * run, or a replay of a simulated cassette (a template's). A fork of it simulates what it asks
 * anew, as its parent did, rather than calling a real model with a key.
 */
function answeredBySimulator(calls: CassetteFile): boolean {
  const responses = calls.entries.flatMap((entry) => entry.responses);
  return responses.length > 0 && responses.every((response) => response.simulated === true);
}
