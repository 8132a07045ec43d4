/**
 * A worker's warm-up: one small simulated society run, compiled, run, recorded and exported
 * exactly as a job is, into a store in memory that is dropped afterwards.
 *
 * A fresh process runs its first job many times slower than the rest: the compiler's schemas,
 * the engine, the store's writes and the export all run for the first time, unoptimised. On the
 * machine of bench/eval-queue.ts a one-call job's first run took about 60 ms against 5 ms warm,
 * and about 35 ms after this warm-up (what is left is the HTTP client's first request). A
 * worker takes up to `--concurrency` jobs the moment an eval is queued, and each of them waits
 * for that CPU, as does the worker's next fetch from the queue. Paid before the worker says it
 * takes jobs, the cost falls where no job waits for it.
 *
 * Nothing of it leaves the process: no call (the model is simulated), no file, no Redis key.
 */

import { exportRun } from '../../runs/export.ts';
import type { RunResult } from '../../runtime/run-options.ts';
import { openRunStore } from '../../store/index.ts';
import { executeJob } from '../job.ts';
import { sha256 } from './wire.ts';

/** One input, one agent, one output: every step a job's run takes, none of them slow. */
const WARM_UP_DOCUMENT = JSON.stringify({
  version: 1,
  name: 'worker warm-up',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 8 } },
  nodes: [
    { id: 'question', type: 'input', position: { x: 0, y: 0 }, data: { name: 'question' } },
    {
      id: 'agent',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Answer in a word: {{ question }}' },
    },
    { id: 'answer', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    {
      id: 'q',
      source: 'question',
      sourceHandle: 'value',
      target: 'agent',
      targetHandle: 'question',
    },
    { id: 'a', source: 'agent', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
  ],
});

/** Runs the warm-up; resolves to how its run ended (`succeeded` unless something is broken). */
export async function warmUp(): Promise<RunResult['status']> {
  const store = openRunStore(':memory:');
  try {
    const outcome = await executeJob(
      {
        evalId: 'warm-up',
        item: 0,
        variant: 'warm-up',
        jobKey: 'warm-up',
        documentText: WARM_UP_DOCUMENT,
        inputs: { question: 'ready?' },
        blobs: [],
        mode: 'simulated',
      },
      { store },
    );
    // The export as a job's is sent: scrubbed, and hashed for the result's signature.
    sha256(store.redactor.text(JSON.stringify(exportRun(store, store.getRun(outcome.runId)!))));
    return outcome.result.status;
  } finally {
    store.close();
  }
}
