/**
 * The served societies as MCP tools: each one's name, description and input schema (from its
 * input nodes), and a call that runs it through the server's runner, so a tool call is a run in
 * the store like any other, queued and refused (busy, budget spent) like any other. Its result is
 * the run's outputs as content: text as text, images as image content, other files as audio or
 * as a data URL; a run that fails is a tool error with one line saying why.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { GraphPlan } from '../compiler/analyze.ts';
import { isGivenModality } from '../node-sdk/tool-modalities.ts';
import type { RunResult } from '../runtime/engine.ts';
import type { RunEvent } from '../runtime/events.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import type { ServeContext } from './api.ts';
import { fieldsSchema, type ServedSociety } from './catalog.ts';
import { startedOrEnded } from './context.ts';
import { HttpError } from './errors.ts';
import { outputText, runFailure } from './results.ts';

/** The key of a result's `_meta` that holds the id of the run that answered it. */
export const RUN_META = 'society-studio/run';

/** A society as a tool. */
export function societyTool(society: ServedSociety): Tool {
  const description = society.compiled.doc.description;
  const schema = fieldsSchema(society.inputs);
  // Files are content, not structured data: the structured result holds every other output.
  const structured = society.outputs.filter((f) => !isFileModality(f.modality));
  return {
    name: society.name,
    title: society.title,
    description: description ? `${society.title}. ${description}` : society.title,
    inputSchema: schema as Tool['inputSchema'],
    ...(structured.length
      ? {
          outputSchema: {
            // No `required`: a branch not taken leaves its output unset.
            type: 'object',
            properties: (fieldsSchema(structured) as { properties: Record<string, object> })
              .properties,
          },
        }
      : {}),
  };
}

/**
 * Progress of a call, told as each of the run's node instances ends: instances done so far, of
 * `total` when the plan fixes how many there are (plannedInstances), else without a total.
 */
export type CallProgress = (done: number, total: number | undefined, message: string) => void;

/**
 * How many node instances a run of `plan` ends (each with `node.finished`, `node.skipped` or
 * `node.failed`), when the plan fixes it: every node once per copy its replication and its
 * containers' make (containers themselves report nothing). Undefined when the count is known
 * only as the run goes: a loop runs as many rounds as its end condition says, and a graph
 * offered as a tool runs once per call a model makes.
 */
export function plannedInstances(plan: GraphPlan): number | undefined {
  if (plan.toolPlans?.size) return undefined;
  let total = 0;
  for (const node of plan.nodes.values()) {
    if (node.container === 'loop') return undefined;
    if (node.container) continue;
    let copies = node.replicate?.items.length ?? 1;
    for (let scope = plan.nodes.get(node.scope); scope; scope = plan.nodes.get(scope.scope))
      copies *= scope.replicate?.items.length ?? 1;
    total += copies;
  }
  return total;
}

/** What a call needs beside its society and arguments. */
export interface CallOptions {
  /** Aborts when the client cancels the call: the run is cancelled. */
  signal: AbortSignal;
  progress?: CallProgress;
  /** Scrubs keys from what the result carries. */
  redact: (text: string) => string;
}

/** Runs `society` with `args` and answers with its outputs, or a tool error saying why not. */
export async function callSociety(
  ctx: ServeContext,
  society: ServedSociety,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<CallToolResult> {
  let served: ReturnType<ServeContext['runner']['submit']>;
  try {
    served = ctx.runner.submit(society, args);
  } catch (error) {
    // Arguments that do not fit and a busy server are the caller's to fix: tool errors it reads.
    if (error instanceof HttpError) {
      const retry = error.headers['retry-after'];
      return toolError(
        options.redact(retry ? `${error.message} (in about ${retry} s)` : error.message),
      );
    }
    throw error;
  }
  const cancel = () => ctx.runner.cancel(served.id);
  options.signal.addEventListener('abort', cancel, { once: true });
  let unsubscribe = () => {};
  let over = false;
  const { progress } = options;
  if (progress) {
    let total = plannedInstances(society.compiled.plan);
    let done = 0;
    void startedOrEnded(served).then((run) => {
      // A run that never started has no nodes to tell of; one that ended meanwhile, no listener.
      if (!run || over) return;
      unsubscribe = run.subscribe((event: RunEvent) => {
        const line = nodeLine(event);
        if (!line) return;
        done++;
        // Should a run outgrow its plan, the total it was told is dropped, never raised.
        if (total !== undefined && done > total) total = undefined;
        progress(done, total, line);
      });
    });
  }
  try {
    const result = await served.done;
    return toolResult(ctx, society, result, served.blobs, options.redact);
  } finally {
    over = true;
    unsubscribe();
    options.signal.removeEventListener('abort', cancel);
  }
}

/** What a node's end says in a progress line, or undefined for every other event. */
function nodeLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'node.finished':
      return `node "${event.node}" finished`;
    case 'node.skipped':
      return `node "${event.node}" skipped: ${event.reason}`;
    case 'node.failed':
      return `node "${event.node}" failed: ${firstLine(event.error)}`;
    default:
      return undefined;
  }
}

function toolResult(
  ctx: ServeContext,
  society: ServedSociety,
  result: RunResult,
  blobs: { get(hash: string): { bytes: Uint8Array; mime: string } | undefined },
  redact: (text: string) => string,
): CallToolResult {
  if (result.status !== 'succeeded') return toolError(redact(runFailure(result)), result.runId);
  const content: CallToolResult['content'] = [];
  const structured: Record<string, unknown> = {};
  const fileOf = (hash: string) => blobs.get(hash) ?? ctx.store.getBlob(hash);
  for (const field of society.outputs) {
    if (!(field.name in result.outputs)) continue;
    const value = result.outputs[field.name];
    const files = (Array.isArray(value) ? value : [value])
      .map((v) => blobHashOf(v))
      .map((hash) => (hash ? fileOf(hash) : undefined));
    if (files.length > 0 && files.every((f) => f !== undefined)) {
      for (const file of files) content.push(fileContent(file!));
      continue;
    }
    // Made-up answers say so wherever they are shown, as the chat endpoint's do.
    const text = outputText(result, value);
    const labelled = typeof value === 'string' ? text : value;
    content.push({
      type: 'text',
      text: redact(society.outputs.length > 1 ? `${field.name}: ${text}` : text),
    });
    structured[field.name] = JSON.parse(redact(JSON.stringify(labelled ?? null)));
  }
  return {
    // The run's id, for `society show` and the studio's Runs.
    _meta: { [RUN_META]: result.runId },
    content,
    ...(society.outputs.some((f) => !isFileModality(f.modality))
      ? { structuredContent: structured }
      : {}),
  };
}

function fileContent(file: { bytes: Uint8Array; mime: string }): CallToolResult['content'][number] {
  const data = Buffer.from(file.bytes).toString('base64');
  if (file.mime.startsWith('image/')) return { type: 'image', data, mimeType: file.mime };
  if (file.mime.startsWith('audio/')) return { type: 'audio', data, mimeType: file.mime };
  // Any other file (a 3D asset) as an embedded resource the client can save.
  return {
    type: 'resource',
    resource: { uri: `data:${file.mime};base64,${data}`, mimeType: file.mime, blob: data },
  };
}

/** True for a file (an image, a recording, a 3D asset) or a list of them. */
function isFileModality(modality: string): boolean {
  return isGivenModality(modality.replace(/^list<(.+)>$/, '$1'));
}

function toolError(message: string, runId?: string): CallToolResult {
  return {
    ...(runId ? { _meta: { [RUN_META]: runId } } : {}),
    content: [{ type: 'text', text: message }],
    isError: true,
  };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
