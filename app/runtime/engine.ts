/**
 * The run engine: runs a compiled graph's XState machine and does the work its states ask for.
 * Its parts, one concept each:
 *
 * - run.ts: a run's lifecycle (start, pause, step, edit, cancel, result) and its child graphs;
 * - node-runner.ts: one node instance, its checkpoints and the context its executor gets;
 * - inputs.ts: what reaches a node's inputs, and the run's own inputs and outputs;
 * - calls.ts: the one gateway to models and experts (providers, budget, retries, cassettes);
 * - limits.ts: how many calls are in flight per provider;
 * - loops.ts: the engine's side of loop containers (transcripts, positions, their hooks);
 * - event-log.ts: numbering, scrubbing, keeping and adopting the run's events.
 *
 * This module is what the rest of the app imports.
 */

export type { Stage } from '../schema/document.ts';
export { editsInLog } from './edits.ts';
export { eventIdentity } from './event-log.ts';
export { Run, startRun } from './run.ts';
export type { RunOptions, RunResult } from './run-options.ts';
export { errorMessage, previewValues } from './values.ts';
