/**
 * The model server of bench/parallel-agents.ts: the stub OpenAI server (tests/support) answering
 * each voter after a fixed latency, on a worker thread of its own by default.
 *
 * A real model server runs in another process. On the engine's own event loop the stub reads a
 * request only once the engine has handled every answer that came in with the one before it, so
 * the requests of each wave arrive bunched and their answers come back bunched: every wave then
 * costs the latency plus the whole wave's handling, not one call's. `inline` keeps the old set-up
 * for comparison (BENCH_STUB=inline).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type StubRequestBody, startStubOpenAI } from '../tests/support/stub-openai.ts';

/** Where the stub runs: its own thread, or the engine's event loop. */
export type StubPlacement = 'thread' | 'inline';

/** What the stub saw, once closed. */
export interface StubReport {
  /** When each request arrived, in ms of `performance.timeOrigin + performance.now()`. */
  arrivals: number[];
  requests: number;
  peakConcurrency: number;
}

export interface ParallelStub {
  /** Base URL ending in /v1. */
  url: string;
  close(): Promise<StubReport>;
}

/** Now, in ms since the epoch with sub-millisecond precision, comparable across threads. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Voter #i answers A when i % 5 < 3, else B: a 60/40 plurality for A. */
function respond(body: StubRequestBody) {
  const messages: Array<{ role?: string; content?: unknown }> = body?.messages ?? [];
  const user = messages.findLast((m) => m.role === 'user');
  const match = /#(\d+)/.exec(typeof user?.content === 'string' ? user.content : '');
  const i = match ? Number(match[1]) : 0;
  return { text: i % 5 < 3 ? 'A' : 'B', usage: { prompt_tokens: 12, completion_tokens: 1 } };
}

/** The stub in this thread. */
async function serve(latencyMs: number): Promise<ParallelStub> {
  const arrivals: number[] = [];
  const stub = await startStubOpenAI({
    latencyMs,
    // The responder runs once the latency has passed: the request arrived `latencyMs` earlier.
    respond: (body) => {
      arrivals.push(epochNow() - latencyMs);
      return respond(body);
    },
  });
  return {
    url: stub.url,
    close: async () => {
      const report = { arrivals, requests: stub.count(), peakConcurrency: stub.peakConcurrency() };
      await stub.close();
      return report;
    },
  };
}

/** Starts the voters' stub server, on its own thread unless `placement` is 'inline'. */
export async function startParallelStub(
  latencyMs: number,
  placement: StubPlacement = 'thread',
): Promise<ParallelStub> {
  if (placement === 'inline') return serve(latencyMs);
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { parallelStub: true, latencyMs },
  });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const { url } = (await next()) as { url: string };
  return {
    url,
    close: async () => {
      const report = next();
      worker.postMessage('close');
      const result = (await report) as StubReport;
      await worker.terminate();
      return result;
    },
  };
}

if (!isMainThread && workerData?.parallelStub === true && parentPort) {
  const port = parentPort;
  const stub = await serve(Number(workerData.latencyMs));
  port.on('message', async () => port.postMessage(await stub.close()));
  port.postMessage({ url: stub.url });
}
