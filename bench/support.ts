/** Small helpers shared by the benchmarks: timing, medians, formatting, a zero-latency provider. */
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeYoungGeneration } from '../app/memory/young-generation.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../app/providers/types.ts';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds with a sensible number of decimals. */
export function ms(value: number, digits = 1): string {
  return `${value.toFixed(digits)} ms`;
}

export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

export function machineLine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown cpu';
  return `node ${process.version}, ${os.availableParallelism()} cpus (${model}), ${os.platform()}-${os.arch()}; ${describeYoungGeneration()}`;
}

/**
 * The environment for a bench's child process that measures the product's own memory or start:
 * Node's compile cache on, in the folder the product's entries use (`bin/society.js` and
 * `scripts/launch.mjs` call `module.enableCompileCache()`, whose default is this folder), so the
 * child loads its modules as the product does after its first start: from V8's cached code,
 * without stripping types again. NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE, when set,
 * are kept.
 */
export function productNodeEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return { ...env };
  return { ...env, NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'node-compile-cache') };
}

/** "modules from Node's compile cache" or "no compile cache", for a line of a report. */
export function describeCompileCache(dir = module.getCompileCacheDir?.()): string {
  return dir
    ? "modules loaded from Node's compile cache, as the product loads them"
    : 'no compile cache';
}

/** True when the module at `url` is the script node was started with. */
export function isMain(url: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && pathToFileURL(entry).href === url;
}

/** The text of the last user message, as a deterministic answer. */
function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== 'user') continue;
    return typeof message.content === 'string'
      ? message.content
      : message.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
  }
  return '';
}

/** Answers at once (one resolved promise), echoing the prompt: only the caller's cost remains. */
export function zeroLatencyChat(request: ChatRequest): Promise<ChatResult> {
  return Promise.resolve({
    text: `ok: ${lastUserText(request)}`,
    usage: { promptTokens: 1, completionTokens: 1 },
    model: request.model,
    finishReason: 'stop',
    source: 'live',
  });
}

/** An in-process ChatProvider with zero latency, counting its calls. */
export class ZeroLatencyProvider implements ChatProvider {
  readonly id: string;
  calls = 0;
  constructor(id: string) {
    this.id = id;
  }
  chat(request: ChatRequest): Promise<ChatResult> {
    this.calls++;
    return zeroLatencyChat(request);
  }
}
