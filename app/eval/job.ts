/**
 * One item × variant of an eval as a job: everything a run needs, as plain JSON, so the same
 * job runs in this process or on a worker elsewhere (queue.ts). Running it makes an ordinary
 * run in a store; a job whose earlier run was cut off (a kill, a crash) resumes that run, with
 * the calls it already made answered from its own record, so none is paid twice.
 */

import { createHash } from 'node:crypto';
import { type CompileResult, compileGraph } from '../compiler/index.ts';
import { DEFAULT_PRICES } from '../costs/prices.ts';
import { expertProviders } from '../experts/providers.ts';
import { loadNodeRegistry, type NodeRegistry } from '../node-sdk/registry.ts';
import { Cassette } from '../providers/cassette.ts';
import type { ProfileOverride } from '../providers/profiles.ts';
import {
  callRecorder,
  expertRecorder,
  recordEvents,
  storeImages,
  toolRecorder,
} from '../runs/record.ts';
import { planReopen } from '../runs/reopen.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { type Run, startRun } from '../runtime/run.ts';
import type { RunOptions, RunResult } from '../runtime/run-options.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import { allowedOrigins } from '../store/allowed-hosts.ts';
import { newRunId, type RunStore } from '../store/index.ts';
import { listMcpProfiles, type McpProfile } from '../tools/profiles.ts';
import { mcpToolSources, withOverrides } from '../tools/sources.ts';

/** Bytes a job's inputs refer to, carried with it. */
export interface JobBlob {
  sha256: string;
  mime: string;
  base64: string;
}

export interface EvalJob {
  evalId: string;
  item: number;
  variant: string;
  /** Which run of the item under `--repeats` (0-based; absent is 0). Its seed is in the text. */
  repeat?: number;
  /**
   * (document hash, item, variant) hashed, and the repeat with it from the second on: the job's
   * identity everywhere, queue ids included.
   */
  jobKey: string;
  /** The document text to run, parameters bound (`documentTextOf`). */
  documentText: string;
  inputs: Record<string, unknown>;
  blobs: JobBlob[];
  /** Answers for human nodes, when the dataset gives them. */
  humanAnswers?: Record<string, string>;
  mode: 'live' | 'simulated' | 'replay';
  /** Replay mode: the cassette's JSON text (so a worker elsewhere needs no file). */
  cassetteText?: string;
  /** The variant's provider redirects, already parsed. */
  providerOverrides?: Record<string, ProfileOverride>;
}

/** What running a job gave: the run, its result and how long it took. */
export interface JobOutcome {
  runId: string;
  result: RunResult;
  latencyMs: number;
  /** The blob store holding the run's inputs and outputs (pictures a scorer looks at). */
  blobs: BlobStore;
}

/** The job key of an item under a variant of a document. */
export function jobKeyOf(documentHash: string, item: number, variant: string): string {
  return createHash('sha256')
    .update(`${documentHash}\u0000${item}\u0000${variant}`)
    .digest('hex')
    .slice(0, 32);
}

/** The bytes `inputs` refer to, from `blobs`, for a job. */
export function jobBlobs(inputs: Record<string, unknown>, blobs: BlobStore): JobBlob[] {
  const found: JobBlob[] = [];
  const visit = (value: unknown) => {
    const hash = blobHashOf(value);
    if (hash) {
      const blob = blobs.get(hash);
      if (blob)
        found.push({
          sha256: hash,
          mime: blob.mime,
          base64: Buffer.from(blob.bytes).toString('base64'),
        });
      return;
    }
    if (Array.isArray(value)) value.forEach(visit);
  };
  Object.values(inputs).forEach(visit);
  return found;
}

/** Documents compiled lately, by text: an eval's jobs all run the same few documents. */
const compiledDocuments = new Map<
  string,
  { registry: NodeRegistry; result: Promise<CompileResult> }
>();
/** A document per variant of an eval or two: more than enough to compile each once. */
const COMPILED_KEPT = 16;

/**
 * `text` compiled, once per process for as long as it is among the last documents run: a
 * worker's jobs (and a local eval's) carry the same document, and compiling it again for each
 * one costs milliseconds of CPU a run needs for itself. A compiled graph is read, never changed,
 * by the runs that share it (as a served society's runs share theirs).
 */
function compiledDocument(text: string, registry: NodeRegistry): Promise<CompileResult> {
  const kept = compiledDocuments.get(text);
  if (kept && kept.registry === registry) return kept.result;
  const result = compileGraph(text, registry);
  // A compile that threw (it reports problems, it should not) is not kept.
  result.catch(() => compiledDocuments.delete(text));
  if (compiledDocuments.size >= COMPILED_KEPT)
    compiledDocuments.delete(compiledDocuments.keys().next().value!);
  compiledDocuments.set(text, { registry, result });
  return result;
}

/** Options of the process that runs jobs. */
export interface JobContext {
  store: RunStore;
  /** Provider redirects of this process (stored profiles), under the job's own. */
  providerOverrides?: Record<string, ProfileOverride>;
  /** Makes live chat providers (a queue worker wraps them in its rate limits). */
  providerFor?: RunOptions['providerFor'];
  /**
   * Origins the runs may contact beyond those the store allows: a local eval's --allow-host.
   * A worker gives none, so what a job may reach is only what the worker's own store allows.
   */
  allowedOrigins?: readonly string[];
  /**
   * MCP server profiles over the store's: a local eval's --mcp. A worker gives none, and a job
   * carries none, so a job opens only servers its worker's user added.
   */
  mcp?: readonly McpProfile[];
  /** Tools that run though their policy is ask: a local eval's --approve-tools. */
  approvedTools?: readonly string[];
  signal?: AbortSignal;
}

/**
 * Runs `job` into `context.store`. `resumeRunId` names the job's earlier run when it was cut
 * off: it resumes from its log and call record instead of starting again. `onStart` is told
 * the run's id once the store holds it. `runId` is the id a new run takes (a served run's, made
 * by the server that queued it); `onRun` is handed the engine's run as it starts, to follow.
 */
export async function executeJob(
  job: EvalJob,
  context: JobContext,
  options: {
    resumeRunId?: string;
    onStart?: (runId: string) => void;
    runId?: string;
    onRun?: (run: Run) => void;
  } = {},
): Promise<JobOutcome> {
  const { resumeRunId } = options;
  const { store } = context;
  const registry = await loadNodeRegistry();
  const compiled = await compiledDocument(job.documentText, registry);
  if (!compiled.ok)
    throw new Error(
      `the document does not compile: ${compiled.problems.map((p) => p.message).join('; ')}`,
    );
  const blobs = new BlobStore();
  for (const blob of job.blobs) blobs.put(Buffer.from(blob.base64, 'base64'), blob.mime);
  const prices = { ...DEFAULT_PRICES, ...store.priceTable() };
  const providerOverrides = { ...context.providerOverrides, ...job.providerOverrides };
  const started = Date.now();
  const resumable = resumeRunId ? store.getRun(resumeRunId) : undefined;
  let runId: string;
  let cassette: RunOptions['cassette'];
  let continueFrom: RunOptions['continueFrom'];
  if (resumable && resumable.status === 'interrupted') {
    runId = resumable.id;
    // Calls the cut-off run made are answered from its record; the rest are made anew.
    const reopened = planReopen(store, resumable, { blobs });
    cassette = reopened.options.cassette;
    continueFrom = reopened.options.continueFrom;
    store.reopenRun(runId);
  } else {
    runId = options.runId ?? newRunId();
    if (job.mode === 'replay')
      cassette = {
        cassette: Cassette.fromJSON(JSON.parse(job.cassetteText ?? '{}'), 'the eval cassette'),
        mode: 'replay',
      };
    const id = runId;
    // The run and whatever `onStart` records of it (an eval's link to it) commit together: a
    // kill between the two would leave a run no eval knows, and a second run for its item.
    store.atomically(() => {
      store.createRun({
        id,
        document: compiled.doc,
        documentText: job.documentText,
        compilerVersion: compiled.machines.compilerVersion,
        mode: job.mode,
        inputs: job.inputs,
      });
      storeImages(store, blobs, job.inputs);
      options.onStart?.(id);
    });
  }
  if (resumeRunId === runId) options.onStart?.(runId);
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    runId,
    inputs: job.inputs,
    humanAnswers: job.humanAnswers ?? {},
    blobs,
    prices,
    simulate: job.mode === 'simulated',
    providerOverrides,
    // The hosts this process's own store allows: on a worker, the worker's settings. A job
    // carries no allowances, so a forged one reaches nothing its worker's user did not allow.
    allowedOrigins: [...allowedOrigins(store), ...(context.allowedOrigins ?? [])],
    redactor: store.redactor,
    tools: mcpToolSources({
      profiles: withOverrides(listMcpProfiles(store), context.mcp ?? []),
      redactor: store.redactor,
    }),
    // No one is there to answer a tool that asks: it runs when approved, else the run fails.
    ...(context.approvedTools ? { toolApproval: { approved: context.approvedTools } } : {}),
    onModelCall: callRecorder(store, runId),
    onExpertCall: expertRecorder(store, runId),
    ...toolRecorder(store, runId),
    ...(cassette ? { cassette } : {}),
    ...(continueFrom ? { continueFrom } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.providerFor ? { providerFor: context.providerFor } : {}),
  });
  // A resumed run's earlier events are in the store already.
  const finish = recordEvents(store, run, () => {});
  options.onRun?.(run);
  const result = await run.result;
  finish(result);
  return { runId, result, latencyMs: Date.now() - started, blobs };
}
