/**
 * Served runs on queue workers (`society serve --queue URL`): the runner's executor that hands
 * each run, once it has its slot, to `society worker` processes through BullMQ on Redis — the
 * workers that run evals (app/eval/queue/). The run is recorded in this server's store as
 * running when it is handed over, so the studio's Runs list it at once; the worker runs it,
 * publishing its events as they come, which are passed on to whoever streams it; once it ends,
 * its export (record, events, calls, bytes) is imported here, replacing the record, so the
 * debugger opens it and the API answers with its outputs.
 *
 * Cancelling a run still waiting for a worker takes its job out of the queue; cancelling one
 * running asks its worker to stop it (its cancelled run is imported as any other). A worker that
 * dies mid-run is handled by BullMQ as for eval jobs: another worker takes the job over.
 */
import { type Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobBlobs } from '../eval/job.ts';
import {
  bullConnection,
  connectRedis,
  QUEUE_PREFIX,
  type QueueAddress,
  queueTimings,
  SERVED_QUEUE,
} from '../eval/queue/connection.ts';
import {
  CANCEL_CHANNEL,
  cancelKey,
  parseEvent,
  queuedRun,
  runEventsChannel,
  servedJobId,
  signedCancel,
} from '../eval/queue/served-run.ts';
import { type JobResult, parseJobResult, sha256 } from '../eval/queue/wire.ts';
import { parseExport } from '../runs/export.ts';
import { documentTextOf, sourceTextOf, storeImages } from '../runs/record.ts';
import type { RunResult } from '../runtime/engine.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { RunStore } from '../store/index.ts';
import { emptyResult, type RunExecutor, type RunHandle, type ServedRun } from './runs.ts';

export interface QueuedExecutorOptions {
  address: QueueAddress;
  /** This server's store: runs are recorded in it, and imported into it once they end. */
  store: RunStore;
  /** The secret shared with the workers: runs are signed with it, results checked. */
  secret: string;
  simulate: boolean;
  /** The provider profiles the server was started with: a worker must have each of its own. */
  profiles?: readonly string[];
  /** Lines for the user: no worker connected, a lost connection. */
  log?: (line: string) => void;
}

/** How long a cancelled running run may take to come back before it is recorded here as cancelled. */
const CANCEL_GRACE_MS = 30_000;

type Listener = (event: RunEvent) => void;

/** A run on a worker, as the runner and the event stream see it. */
class QueuedRun implements RunHandle {
  readonly events: RunEvent[] = [];
  readonly result: Promise<RunResult>;
  readonly #listeners = new Set<Listener>();
  readonly #seen = new Set<number>();
  #settle!: (result: RunResult) => void;
  #settled = false;
  cancelled = false;
  onCancel: () => void = () => {};

  readonly id: string;

  constructor(id: string) {
    this.id = id;
    this.result = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  get settled(): boolean {
    return this.#settled;
  }

  subscribe(listener: Listener, { replay = false }: { replay?: boolean } = {}): () => void {
    if (replay) for (const event of this.events) listener(event);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  cancel(): void {
    if (this.cancelled || this.#settled) return;
    this.cancelled = true;
    this.onCancel();
  }

  /**
   * An event of the run, as the worker published it or the store holds it; each once. Its
   * `run.finished` waits for the store: a client told the run ended reads it there.
   */
  push(event: RunEvent, final = false): void {
    if (this.#settled || this.#seen.has(event.seq)) return;
    if (event.type === 'run.finished' && !final) return;
    this.#seen.add(event.seq);
    this.events.push(event);
    for (const listener of this.#listeners) listener(event);
  }

  /** Ends the run with `result`, after the events the store holds that were not heard live. */
  finish(result: RunResult, stored: readonly RunEvent[]): void {
    if (this.#settled) return;
    for (const event of stored) this.push(event, true);
    this.#settled = true;
    this.#settle(result);
  }
}

/** An executor whose runs go to queue workers; resolves once Redis answers (else throws one line). */
export async function queuedExecutor(options: QueuedExecutorOptions): Promise<RunExecutor> {
  const { address, store, secret } = options;
  const log = options.log ?? (() => {});
  const redis: Redis = await connectRedis(address);
  // A connection that subscribes can do nothing else: the runs' events come on their own one.
  const listening = redis.duplicate();
  const common = { connection: bullConnection(address), prefix: QUEUE_PREFIX };
  const queue = new Queue(SERVED_QUEUE, common);
  const queueEvents = new QueueEvents(SERVED_QUEUE, common);
  let lastError = '';
  const onError = (error: Error) => {
    // A lost connection repeats its error on every retry: say it once.
    if (error.message !== lastError) log(`queue: ${error.message}`);
    lastError = error.message;
  };
  queue.on('error', onError);
  queueEvents.on('error', onError);
  listening.on('error', onError);
  await queueEvents.waitUntilReady();

  /** Runs handed to workers and not yet ended here, by job id. */
  const pending = new Map<string, { handle: QueuedRun; data: unknown; importing?: boolean }>();
  const byChannel = new Map<string, QueuedRun>();
  listening.on('message', (channel: string, text: string) => {
    const handle = byChannel.get(channel);
    const event = handle && parseEvent(text, secret, handle.id);
    if (event) handle.push(event);
  });

  /** Records how a run ended that came back with no run of its own (failed, cancelled while queued). */
  const endHere = (handle: QueuedRun, status: RunResult['status'], error?: string) => {
    const result: RunResult = { ...emptyResult(handle.id, status), ...(error ? { error } : {}) };
    const finished: RunEvent = {
      type: 'run.finished',
      runId: handle.id,
      seq: Math.max(0, ...handle.events.map((e) => e.seq)) + 1,
      time: Date.now(),
      status,
      outputs: {},
      usage: result.usage,
      ...(error ? { error } : {}),
    };
    try {
      const writer = store.eventWriter(handle.id);
      writer.push(finished);
      writer.close({ status, outputs: {}, usage: result.usage, ...(error ? { error } : {}) });
    } catch {
      // Recorded already (a result that came back meanwhile): the store's record stands.
    }
    settle(handle, result, [finished]);
  };

  const settle = (handle: QueuedRun, result: RunResult, events: readonly RunEvent[]) => {
    const jobId = servedJobId(handle.id);
    pending.delete(jobId);
    byChannel.delete(runEventsChannel(handle.id));
    listening.unsubscribe(runEventsChannel(handle.id)).catch(() => {});
    handle.finish(result, events);
    queue.remove(jobId).catch(() => {});
    if (handle.cancelled) redis.del(cancelKey(handle.id)).catch(() => {});
  };

  /** A worker's result: the run's export, checked against the hash it signed, imported here. */
  const completed = async (jobId: string, value: unknown) => {
    const entry = pending.get(jobId);
    // Heard twice (its event and a look at Redis): imported once.
    if (!entry || entry.handle.settled || entry.importing) return;
    entry.importing = true;
    const { handle } = entry;
    let result: JobResult;
    try {
      result = parseJobResult(value, secret);
      if (result.runId !== handle.id) throw new Error('the result names another run');
      const text = await redis.get(result.exportKey);
      if (text === null) throw new Error('the run came back without its export');
      if (sha256(text) !== result.exportSha256)
        throw new Error('the run export in the queue is not the one its worker signed');
      if (handle.settled) return;
      store.importRun(parseExport(text, `the run ${handle.id}`));
      await redis.del(result.exportKey);
    } catch (error) {
      if (!handle.settled) endHere(handle, 'failed', (error as Error).message);
      return;
    }
    const run = store.getRun(handle.id)!;
    settle(
      handle,
      {
        runId: run.id,
        status: run.status as RunResult['status'],
        outputs: run.outputs ?? {},
        usage: run.usage ?? emptyResult(run.id, 'failed').usage,
        ...(run.error !== undefined ? { error: run.error } : {}),
        simulated: run.mode === 'simulated',
      },
      store.events(run.id),
    );
  };
  const failed = (jobId: string, reason: string) => {
    const entry = pending.get(jobId);
    if (entry && !entry.handle.settled)
      endHere(entry.handle, 'failed', reason || 'the run failed on its worker');
  };
  queueEvents.on('completed', ({ jobId, returnvalue }) => void completed(jobId, returnvalue));
  queueEvents.on('failed', ({ jobId, failedReason }) => failed(jobId, failedReason));

  /** A job's state in Redis: its result, its failure, or queued again when Redis lost it. */
  const look = async (jobId: string) => {
    const entry = pending.get(jobId);
    if (!entry) return;
    const job: Job | undefined = await queue.getJob(jobId);
    if (!job) {
      if (!entry.handle.cancelled)
        await queue.add(entry.handle.id, entry.data, { jobId, removeOnFail: { age: 3600 } });
    } else if (job.finishedOn && job.returnvalue) await completed(jobId, job.returnvalue);
    else if (await job.isFailed()) failed(jobId, job.failedReason);
  };
  // Not only the events: one lost with a Redis restart would leave a client waiting forever.
  const { stalledCheckMs } = queueTimings();
  let looking = false;
  const recheck = setInterval(() => {
    if (looking || pending.size === 0) return;
    looking = true;
    Promise.allSettled([...pending.keys()].map(look)).finally(() => {
      looking = false;
    });
  }, stalledCheckMs);
  recheck.unref();
  let warned = false;
  let closed = false;

  const hand = async (handle: QueuedRun, data: unknown) => {
    const jobId = servedJobId(handle.id);
    // Listening before the job is added: no event of it can come before.
    await listening.subscribe(runEventsChannel(handle.id));
    await queue.add(handle.id, data, { jobId, removeOnFail: { age: 3600 } });
    if (!warned && (await queue.getWorkersCount()) === 0) {
      warned = true;
      log(
        `no worker is connected to ${address.shown} yet: runs wait in the queue (start one with society worker --queue ${address.shown})`,
      );
    }
    // A result that landed before we listened is found here.
    await look(jobId);
  };

  const cancel = async (handle: QueuedRun) => {
    // Back already, being imported: it ends as it ended on its worker.
    if (pending.get(servedJobId(handle.id))?.importing) return;
    // Marked first: a worker taking the job from now on ends it at once.
    await redis.set(cancelKey(handle.id), '1', 'EX', 3600);
    const job = await queue.getJob(servedJobId(handle.id));
    const removed = job
      ? await job.remove().then(
          () => true,
          () => false, // a worker holds it: it is running
        )
      : true;
    if (removed) endHere(handle, 'cancelled');
    else {
      await redis.publish(CANCEL_CHANNEL, signedCancel(handle.id, secret));
      // Its worker may be gone: the run is recorded cancelled here all the same, in time.
      setTimeout(() => {
        if (!handle.settled) endHere(handle, 'cancelled');
      }, CANCEL_GRACE_MS).unref();
    }
  };

  return {
    start(served: ServedRun, society, given): RunHandle {
      const { compiled } = society;
      // The job carries its inputs through Redis as they are: one holding a key is not queued.
      if (store.redactor.finds(JSON.stringify([given.inputs, given.humanAnswers])))
        throw new Error('its inputs hold a key; it would be written to Redis, so it is not queued');
      store.createRun({
        id: served.id,
        document: compiled.doc,
        documentText: documentTextOf(compiled),
        compilerVersion: compiled.machines.compilerVersion,
        mode: options.simulate ? 'simulated' : 'live',
        inputs: given.inputs,
      });
      storeImages(store, served.blobs, given.inputs);
      store.saveGraph(compiled.source, sourceTextOf(compiled));
      const handle = new QueuedRun(served.id);
      const data = queuedRun(
        {
          runId: served.id,
          society: society.name,
          documentText: documentTextOf(compiled),
          inputs: given.inputs,
          blobs: jobBlobs(given.inputs, served.blobs),
          ...(Object.keys(given.humanAnswers).length ? { humanAnswers: given.humanAnswers } : {}),
          mode: options.simulate ? 'simulated' : 'live',
          ...(options.profiles?.length ? { profiles: [...options.profiles].sort() } : {}),
        },
        secret,
      );
      const jobId = servedJobId(served.id);
      pending.set(jobId, { handle, data });
      byChannel.set(runEventsChannel(served.id), handle);
      handle.onCancel = () => {
        cancel(handle).catch((error: Error) => {
          if (!handle.settled) endHere(handle, 'cancelled', `cancelled here; ${error.message}`);
        });
      };
      hand(handle, data).catch((error: Error) => {
        if (!handle.settled)
          endHere(handle, 'failed', `the queue refused the run: ${error.message}`);
      });
      return handle;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(recheck);
      await Promise.allSettled([queueEvents.close(), queue.close()]);
      listening.disconnect();
      redis.disconnect();
    },
  };
}
