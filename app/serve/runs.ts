/**
 * The runs a server holds: each started as `society run` starts one (recorded in the run store
 * with its document, inputs, images, events, its own record of calls and how it ended), at most
 * `concurrency` at once, and up to `queueLimit` more waiting their turn. Beyond that, and once the
 * server's budget is spent, a new run is refused with 429 and when to retry. Who runs a run once
 * it has its slot is the executor's business: this process (the default), or queue workers
 * (`society serve --queue`, queued.ts); either way the run ends up in this store.
 */
import { expertProviders } from '../experts/providers.ts';
import type { NodeRegistry } from '../node-sdk/registry.ts';
import type { ProfileOverride } from '../providers/profiles.ts';
import {
  callRecorder,
  documentTextOf,
  expertRecorder,
  recordEvents,
  sourceTextOf,
  storeImages,
  toolRecorder,
} from '../runs/record.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { type Run, type RunResult, startRun } from '../runtime/engine.ts';
import type { RunOptions } from '../runtime/run-options.ts';
import type { RunValuePolicy } from '../runtime/run-values.ts';
import type { RunStore } from '../store/index.ts';
import { newRunId } from '../store/index.ts';
import { type AskedBudget, runLimits, withBudget } from './budget.ts';
import type { ServedSociety } from './catalog.ts';
import { HttpError } from './errors.ts';
import { readServedInputs, type ServedInputs } from './inputs.ts';

/** How the server runs societies. */
export interface RunnerOptions {
  store: RunStore;
  registry: NodeRegistry;
  /** Runs at once. */
  concurrency: number;
  /** Runs waiting beyond `concurrency`; one more is refused with 429. */
  queueLimit: number;
  /** US dollars all the server's runs may spend; a run once it is spent is refused. */
  budgetUsd?: number | undefined;
  /** Milliseconds a run may take; a longer one is cancelled. */
  timeoutMs?: number | undefined;
  simulate?: boolean;
  providerOverrides?: Record<string, ProfileOverride>;
  prices?: RunOptions['prices'];
  allowedOrigins?: readonly string[];
  tools?: RunOptions['tools'];
  /** Who runs a run once it has its slot; default: this process. */
  executor?: RunExecutor;
  /**
   * Finished runs kept in memory (with their files), the most recent; older ones are read from
   * the store, as after a restart. Default 100.
   */
  keepFinished?: number;
}

/** Finished runs a server keeps in memory by default. */
const KEEP_FINISHED = 100;

/** Durations kept for Retry-After. */
const RECENT_DURATIONS = 20;

/** What the server needs of a run, wherever it runs: the engine's run has it all. */
export type RunHandle = Pick<Run, 'subscribe' | 'cancel' | 'result' | 'events'>;

/**
 * Runs a served run once it has its slot: records it in the store (as running, under
 * `served.id`) and starts it; the handle's result settles once the store holds how it ended.
 * Throwing means the run could not start at all (it fails without taking its slot along).
 */
export interface RunExecutor {
  start(served: ServedRun, society: ServedSociety, given: ServedInputs): RunHandle;
  /** Lets go of what it holds; the runner has already cancelled and awaited its runs. */
  close?(): Promise<void>;
}

/** What one request asks of its run beyond its inputs. */
export interface SubmitOptions {
  /** Nodes whose model calls stream, so a chat answer streams as it comes (chat-stream.ts). */
  streamNodes?: readonly string[];
  /** The request's own budget (budget.ts), within the document's and the server's. */
  budget?: AskedBudget | undefined;
  /** How the values are typed (default: the API's strict JSON types; a form's fields are text). */
  policy?: RunValuePolicy;
}

/** A run the server started or holds in its queue. */
export interface ServedRun {
  id: string;
  society: string;
  state: 'queued' | 'running' | 'finished';
  /** The run, once it has started (the engine's, or a handle on one on a worker). */
  run?: RunHandle;
  result?: RunResult;
  /** Resolves with the engine's run when it starts (never, for a run cancelled in the queue). */
  started: Promise<RunHandle>;
  /** Resolves with the result when the run ends (cancelled in the queue too). */
  done: Promise<RunResult>;
  blobs: BlobStore;
  createdAt: number;
  /** Set when the run was cancelled for taking longer than the server's timeout. */
  timedOut?: boolean;
}

interface Pending {
  served: ServedRun;
  start: () => void;
  cancel: () => void;
}

/** Starts, queues, finds and cancels the server's runs. */
export class Runner {
  readonly #options: RunnerOptions;
  readonly #runs = new Map<string, ServedRun>();
  readonly #queue: Pending[] = [];
  #active = 0;
  #spentUsd = 0;
  /** Set once `stop` began: a run started after it would outlive the server and its store. */
  #stopping = false;
  /** Durations of the most recent finished runs (ms), for the Retry-After a refusal sends. */
  readonly #durations: number[] = [];
  /** Ids of finished runs still in `#runs`, oldest first. */
  readonly #finished: string[] = [];

  constructor(options: RunnerOptions) {
    this.#options = options;
  }

  /** Runs now running and waiting. */
  get load(): { running: number; queued: number } {
    return { running: this.#active, queued: this.#queue.length };
  }

  /**
   * Starts a run of `society` with `values` (its inputs by name), or queues it. Throws a 400
   * for inputs that do not fit or a budget above what the server has left, a 429 with
   * Retry-After when the queue is full or the budget spent, a 503 once the server is stopping.
   */
  submit(
    society: ServedSociety,
    values: Record<string, unknown>,
    options: SubmitOptions = {},
  ): ServedRun {
    if (this.#stopping)
      throw new HttpError(503, 'the server is stopping', undefined, { 'retry-after': '5' });
    const { budgetUsd } = this.#options;
    if (budgetUsd !== undefined && this.#spentUsd >= budgetUsd)
      throw new HttpError(
        429,
        `the server's budget of $${budgetUsd} is spent ($${Number(this.#spentUsd.toFixed(6))})`,
        undefined,
        { 'retry-after': '3600' },
      );
    if (this.#active >= this.#options.concurrency && this.#queue.length >= this.#options.queueLimit)
      throw new HttpError(
        429,
        `the server is busy (${this.#active} running, ${this.#queue.length} waiting); retry later`,
        undefined,
        { 'retry-after': String(this.retryAfterSeconds()) },
      );
    runLimits(options.budget, this.#remainingUsd()); // a 400 for asking more than is left
    const blobs = new BlobStore();
    const given = readServedInputs(values, society.compiled.plan, blobs, options.policy);
    let begin!: (run: RunHandle) => void;
    let end!: (result: RunResult) => void;
    const served: ServedRun = {
      id: newRunId(),
      society: society.name,
      state: 'queued',
      started: new Promise((resolve) => {
        begin = resolve;
      }),
      done: new Promise((resolve) => {
        end = resolve;
      }),
      blobs,
      createdAt: Date.now(),
    };
    this.#runs.set(served.id, served);
    const start = () => {
      this.#active++;
      served.state = 'running';
      let run: RunHandle;
      try {
        run = this.#options.executor
          ? this.#options.executor.start(served, this.#budgeted(society, options), given)
          : this.#start(served, society, given, options);
      } catch (error) {
        // The store refused the run (a full disk): it fails without taking its slot along.
        const result = { ...emptyResult(served.id, 'failed'), error: (error as Error).message };
        this.#finish(served, result, end);
        return;
      }
      served.run = run;
      begin(run);
      const { timeoutMs } = this.#options;
      const timer = timeoutMs
        ? setTimeout(() => {
            served.timedOut = true;
            run.cancel();
          }, timeoutMs)
        : undefined;
      void run.result.finally(() => clearTimeout(timer)).catch(() => {});
      void run.result.then(
        (result) => this.#finish(served, result, end),
        (error: unknown) =>
          this.#finish(
            served,
            { ...emptyResult(served.id, 'failed'), error: (error as Error).message },
            end,
          ),
      );
    };
    const cancel = () => {
      this.#retire(served.id);
      served.state = 'finished';
      served.result = emptyResult(served.id, 'cancelled');
      end(served.result);
    };
    if (this.#active < this.#options.concurrency) start();
    else this.#queue.push({ served, start, cancel });
    return served;
  }

  /** The run `id` this server holds, else undefined (it may still be in the store). */
  get(id: string): ServedRun | undefined {
    return this.#runs.get(id);
  }

  /** Cancels a run: a waiting one leaves the queue, a running one is cancelled by the engine. */
  cancel(id: string): boolean {
    const served = this.#runs.get(id);
    if (!served) return false;
    const waiting = this.#queue.findIndex((p) => p.served.id === id);
    if (waiting >= 0) this.#queue.splice(waiting, 1)[0]!.cancel();
    else served.run?.cancel();
    return true;
  }

  /** Cancels every run (the server is stopping) and waits for them to be recorded. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const pending of this.#queue.splice(0)) pending.cancel();
    const running = [...this.#runs.values()].filter((r) => r.state === 'running');
    for (const served of running) served.run?.cancel();
    await Promise.all(running.map((r) => r.done));
    await this.#options.executor?.close?.();
  }

  /** Seconds until a slot is likely free: the mean run's duration, at least one. */
  retryAfterSeconds(): number {
    const recent = this.#durations;
    const mean = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : 1000;
    return Math.max(1, Math.ceil(mean / 1000));
  }

  /** `society` within the request's budget and what the server has left now, however long the run waited. */
  #budgeted(society: ServedSociety, options: SubmitOptions): ServedSociety {
    const limits = runLimits(options.budget, this.#remainingUsd(), { cap: true });
    return { ...society, compiled: withBudget(society.compiled, limits) };
  }

  #start(
    served: ServedRun,
    society: ServedSociety,
    given: ServedInputs,
    options: SubmitOptions,
  ): Run {
    const { store, registry } = this.#options;
    const { compiled } = this.#budgeted(society, options);
    store.createRun({
      id: served.id,
      document: compiled.doc,
      documentText: documentTextOf(compiled),
      compilerVersion: compiled.machines.compilerVersion,
      mode: this.#options.simulate ? 'simulated' : 'live',
      inputs: given.inputs,
    });
    storeImages(store, served.blobs, given.inputs);
    store.saveGraph(society.compiled.source, sourceTextOf(society.compiled));
    const run = startRun(compiled, {
      experts: expertProviders,
      registry,
      runId: served.id,
      inputs: given.inputs,
      humanAnswers: given.humanAnswers,
      blobs: served.blobs,
      simulate: this.#options.simulate === true,
      ...(this.#options.prices ? { prices: this.#options.prices } : {}),
      ...(this.#options.providerOverrides
        ? { providerOverrides: this.#options.providerOverrides }
        : {}),
      ...(this.#options.allowedOrigins ? { allowedOrigins: this.#options.allowedOrigins } : {}),
      ...(this.#options.tools ? { tools: this.#options.tools } : {}),
      ...(options.streamNodes ? { streamNodes: options.streamNodes } : {}),
      // Nobody is at a terminal to approve a tool that asks: such a call is refused.
      toolApproval: { interactive: false },
      redactor: store.redactor,
      onModelCall: callRecorder(store, served.id),
      onExpertCall: expertRecorder(store, served.id),
      ...toolRecorder(store, served.id),
    });
    const finish = recordEvents(store, run, () => {});
    void run.result.then(finish, () => {});
    return run;
  }

  /** US dollars the server's budget has left, when it has one. */
  #remainingUsd(): number | undefined {
    const { budgetUsd } = this.#options;
    return budgetUsd === undefined ? undefined : Math.max(0, budgetUsd - this.#spentUsd);
  }

  /** Counts `id` among the finished runs, letting go of the oldest beyond what is kept. */
  #retire(id: string): void {
    // A long-running server must not hold every run it ever made (their files too).
    this.#finished.push(id);
    if (this.#finished.length > (this.#options.keepFinished ?? KEEP_FINISHED))
      this.#runs.delete(this.#finished.shift()!);
  }

  #finish(served: ServedRun, result: RunResult, end: (result: RunResult) => void): void {
    this.#active--;
    this.#spentUsd += result.usage.costUsd;
    this.#durations.push(Date.now() - served.createdAt);
    if (this.#durations.length > RECENT_DURATIONS) this.#durations.shift();
    this.#retire(served.id);
    served.state = 'finished';
    served.result =
      served.timedOut && result.status === 'cancelled'
        ? {
            ...result,
            error: `the run took longer than ${(this.#options.timeoutMs ?? 0) / 1000} s and was cancelled`,
          }
        : result;
    end(served.result);
    const next = this.#queue.shift();
    if (next) next.start();
  }
}

/** The result of a run that made no call: cancelled before it started, or refused. */
export function emptyResult(runId: string, status: RunResult['status']): RunResult {
  return {
    runId,
    status,
    outputs: {},
    usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
    simulated: false,
  };
}
