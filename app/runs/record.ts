/**
 * Recording runs in the store: the run's events, its own record of model calls and its images.
 * Every key value is scrubbed by the store's redactor on the way in.
 */
import type { CompiledGraph } from '../compiler/index.ts';
import type { RecordedToolResult } from '../providers/cassette-file.ts';
import { normalizeRequest, requestKey } from '../providers/cassette-file.ts';
import { expertKey } from '../providers/expert-record.ts';
import type { ExpertRequest, ExpertResult } from '../providers/expert-types.ts';
import type { ToolDefinition } from '../providers/tools.ts';
import type { ChatRequest, ChatResult } from '../providers/types.ts';
import type { BlobStore } from '../runtime/blobs.ts';
import type { Run, RunResult } from '../runtime/engine.ts';
import type { RunEvent } from '../runtime/events.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import { withParamValues } from '../schema/params.ts';
import type { RunStore } from '../store/index.ts';

/** Binary inputs (images, audio, 3D assets) go into the store's blobs, so a resume can load them again. */
export function storeImages(
  store: RunStore,
  blobs: BlobStore,
  inputs: Record<string, unknown>,
): void {
  for (const value of Object.values(inputs)) {
    const hash = blobHashOf(value);
    const blob = hash ? blobs.get(hash) : undefined;
    if (blob) store.putBlob(blob.bytes, blob.mime);
  }
}

/** Loads a stored run's image inputs back into a blob store. */
export function loadImages(
  store: RunStore,
  blobs: BlobStore,
  inputs: Record<string, unknown>,
): string[] {
  const missing: string[] = [];
  for (const [name, value] of Object.entries(inputs)) {
    const hash = blobHashOf(value);
    if (!hash) continue;
    const blob = store.getBlob(hash);
    if (blob) blobs.put(blob.bytes, blob.mime);
    else missing.push(name);
  }
  return missing;
}

/**
 * Keeps the run's own record of calls: what `society resume` and forks answer from. The store
 * scrubs key values from everything it writes (`RunStore.redactor`).
 */
export function callRecorder(store: RunStore, runId: string) {
  return ({ request, result }: { request: ChatRequest; result: ChatResult }) => {
    store.recordCall(runId, requestKey(request), normalizeRequest(request), {
      text: result.text,
      usage: result.usage,
      model: result.model,
      ...(result.finishReason ? { finishReason: result.finishReason } : {}),
      ...(result.simulated ? { simulated: true } : {}),
      ...(result.toolCalls?.length ? { toolCalls: result.toolCalls } : {}),
    });
  };
}

/** Keeps the run's expert answers in its record, keyed by the request as it was sent. */
export function expertRecorder(store: RunStore, runId: string) {
  return ({ request, result }: { request: ExpertRequest; result: ExpertResult }) => {
    store.recordExpertCall(runId, request, result, expertKey(request));
  };
}

/** Keeps the run's tool results and the tools each source offered in its record. */
export function toolRecorder(store: RunStore, runId: string) {
  return {
    onToolCall: ({
      source,
      tool,
      arguments: args,
      result,
    }: {
      source: string;
      tool: string;
      arguments: Record<string, unknown>;
      result: RecordedToolResult;
    }) => store.recordToolCall(runId, { source, tool, arguments: args }, result),
    onToolList: ({ source, tools }: { source: string; tools: ToolDefinition[] }) =>
      store.recordToolList(runId, source, tools),
  };
}

/**
 * Writes a run's events as they come, and its end; `prior` (what a fork keeps of its parent's
 * log) is written first, and `onEvent` (an events file, progress) is told each event. Events
 * come scrubbed from a run given the store's redactor, and the store scrubs them again as it
 * writes. Returns what to call when the run ends.
 */
export function recordEvents(
  store: RunStore,
  run: Run,
  onEvent: (event: RunEvent) => void,
  prior: RunEvent[] = [],
) {
  const writer = store.eventWriter(run.id);
  // A fork's log begins with the part of its parent's log it keeps.
  for (const event of prior) writer.push({ ...event, runId: run.id });
  run.subscribe(
    (event) => {
      writer.push(event);
      onEvent(event);
    },
    { replay: false },
  );
  return (result: RunResult) => {
    // The run.finished event and the run's final record are stored in one transaction.
    writer.close({
      status: result.status,
      outputs: result.outputs,
      usage: result.usage,
      ...(result.error ? { error: result.error } : {}),
      // A replay the debugger let go beyond its cassette is stored as what it became.
      mode: run.mode,
    });
  };
}

/**
 * The document text a run was started from, for the store: the document as written, each
 * template parameter's default set to the value the run used. Compiling it again (resume,
 * fork, replay of an export) binds the same values with nothing set.
 */
export function documentTextOf(compiled: CompiledGraph): string {
  return `${JSON.stringify(withParamValues(compiled.source, compiled.params), null, 2)}\n`;
}

/** The document as written (its parameters' own defaults), for the store's graph library. */
export function sourceTextOf(compiled: CompiledGraph): string {
  return `${JSON.stringify(compiled.source, null, 2)}\n`;
}
