/**
 * Cassettes: recorded model answers keyed by a normalized request, so a society can be re-run
 * offline, deterministically and for free. A cassette is plain JSON meant to be committed and
 * diffed: entries sorted by key, keys of every object in a fixed order, no keys or headers.
 * The file format and the request keys are in cassette-file.ts (re-exported here).
 */

import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { checkRecordedAnswer } from './answer-guard.ts';
import { sha256Hex, sortKeys } from './canonical.ts';
import {
  type CassetteEntry,
  type CassetteFile,
  cassetteSchema,
  type ExpertCassetteEntry,
  type NormalizedRequest,
  type NormalizedToolRequest,
  normalizeRequest,
  type RecordedResponse,
  type RecordedToolResult,
  requestKey,
  type ToolCassetteEntry,
  toolKey,
  toRecordedTool,
} from './cassette-file.ts';
import { describeDifference, nearestDifference } from './cassette-nearest.ts';
import {
  type BlobReference,
  expertKey,
  fromRecordedExpert,
  type NormalizedExpertRequest,
  normalizeExpertRequest,
  type RecordedExpertResponse,
  toRecordedExpert,
} from './expert-record.ts';
import type { BinaryValue, ExpertRequest, ExpertResult } from './expert-types.ts';
import type { Redactor } from './secrets.ts';
import { chunkWords, clip, lastUserText } from './text.ts';
import type { ToolDefinition } from './tools.ts';
import type { CallOptions, ChatProvider, ChatRequest, ChatResult } from './types.ts';
import { abortError, ProviderError } from './types.ts';

export { canonicalJson } from './canonical.ts';
export * from './cassette-file.ts';

/** A response with its fields in a fixed order and nothing we did not mean to store. */
function toRecorded(result: RecordedResponse | ChatResult): RecordedResponse {
  const recorded: RecordedResponse = {
    text: result.text,
    usage: {
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
    },
    model: result.model,
  };
  if (result.finishReason !== undefined) recorded.finishReason = result.finishReason;
  if (result.simulated) recorded.simulated = true;
  if (result.toolCalls && result.toolCalls.length > 0)
    recorded.toolCalls = result.toolCalls.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments,
    }));
  return recorded;
}

/**
 * An in-memory cassette. Identical requests may legitimately get different answers (a
 * society asks the same thing twice at temperature 1), so each entry holds a list: `lookup`
 * serves them in recorded order and then keeps repeating the last one.
 */
export class Cassette {
  readonly #entries = new Map<string, CassetteEntry>();
  readonly #experts = new Map<string, ExpertCassetteEntry>();
  readonly #blobs = new Map<string, BinaryValue>();
  readonly #answers = new Map<string, string>();
  readonly #tools = new Map<string, ToolCassetteEntry>();
  readonly #toolLists = new Map<string, ToolDefinition[]>();
  /** How many responses of each entry have been served (or recorded live) this run. */
  readonly #cursor = new Map<string, number>();
  /** How misses name the cassette: its file's name when it was read from one. */
  source = 'the cassette';

  /** Read and validate a cassette file. */
  static async load(path: string): Promise<Cassette> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`cannot read cassette ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new Error(`${path} is not a valid cassette: not JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
    const cassette = Cassette.fromJSON(data, path);
    cassette.source = basename(path);
    return cassette;
  }

  /** Build a cassette from parsed JSON; `source` names it in error messages. */
  static fromJSON(data: unknown, source = 'cassette'): Cassette {
    const parsed = cassetteSchema.safeParse(data);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      throw new Error(
        `${source} is not a valid cassette (expected {"format": "society-cassette", "version": 1, "entries": [...]}): ${issues}`,
        { cause: parsed.error },
      );
    }
    const cassette = new Cassette();
    for (const entry of parsed.data.entries) {
      // Keys are recomputed from the requests, so a hand-edited request still matches and a
      // stale key cannot shadow it.
      const request = normalizeRequest(entry.request as NormalizedRequest);
      const key = requestKey(request);
      const existing = cassette.#entries.get(key);
      const responses = entry.responses.map((r) => toRecorded(r as RecordedResponse));
      if (existing) existing.responses.push(...responses);
      else cassette.#entries.set(key, { key, request, responses });
    }
    for (const [hash, blob] of Object.entries(parsed.data.blobs ?? {})) {
      const bytes = new Uint8Array(Buffer.from(blob.base64, 'base64'));
      if (sha256Hex(bytes) !== hash) {
        throw new Error(`${source}: blob ${hash.slice(0, 12)}… does not match its bytes`);
      }
      cassette.#blobs.set(hash, { bytes, mime: blob.mime });
    }
    for (const [name, answer] of Object.entries(parsed.data.answers ?? {}))
      cassette.#answers.set(name, answer);
    for (const entry of parsed.data.tools ?? []) {
      const request = entry.request as NormalizedToolRequest;
      const key = toolKey(request);
      const responses = entry.responses.map((r) => toRecordedTool(r as RecordedToolResult));
      const existing = cassette.#tools.get(key);
      if (existing) existing.responses.push(...responses);
      else cassette.#tools.set(key, { key, request, responses });
    }
    for (const [source, tools] of Object.entries(parsed.data.toolLists ?? {}))
      cassette.#toolLists.set(source, tools as ToolDefinition[]);
    for (const entry of parsed.data.experts ?? []) {
      const request = normalizeExpertRequest(entry.request as NormalizedExpertRequest);
      const key = expertKey(request);
      for (const response of entry.responses) {
        const blob = typeof response.output === 'object' && !Array.isArray(response.output);
        if (blob && !cassette.#blobs.has((response.output as BlobReference).$blob)) {
          throw new Error(
            `${source}: an answer of "${request.model}" refers to blob ${(response.output as BlobReference).$blob.slice(0, 12)}…, which the cassette does not hold`,
          );
        }
      }
      const responses = entry.responses as RecordedExpertResponse[];
      const existing = cassette.#experts.get(key);
      if (existing) existing.responses.push(...responses);
      else cassette.#experts.set(key, { key, request, responses: [...responses] });
    }
    return cassette;
  }

  /** Number of distinct requests recorded (model, expert and tool calls). */
  get size(): number {
    return this.#entries.size + this.#experts.size + this.#tools.size;
  }

  /** The file contents: entries sorted by key so re-recording gives small diffs. */
  toJSON(): CassetteFile {
    const entries = [...this.#entries.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((entry) => ({
        key: entry.key,
        request: sortKeys(entry.request) as NormalizedRequest,
        responses: entry.responses.map(toRecorded),
      }));
    const file: CassetteFile = { format: 'society-cassette', version: 1, entries };
    if (this.#experts.size > 0) {
      file.experts = [...this.#experts.values()]
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map((entry) => ({
          key: entry.key,
          request: sortKeys(entry.request) as NormalizedExpertRequest,
          responses: entry.responses.map((r) => sortKeys(r) as RecordedExpertResponse),
        }));
      const used = new Set(
        file.experts.flatMap((e) =>
          e.responses.flatMap((r) =>
            typeof r.output === 'object' && !Array.isArray(r.output) ? [r.output.$blob] : [],
          ),
        ),
      );
      file.blobs = Object.fromEntries(
        [...used].sort().map((hash) => {
          const blob = this.#blobs.get(hash)!;
          return [hash, { mime: blob.mime, base64: Buffer.from(blob.bytes).toString('base64') }];
        }),
      );
    }
    if (this.#tools.size > 0) {
      file.tools = [...this.#tools.values()]
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map((entry) => ({
          key: entry.key,
          request: sortKeys(entry.request) as NormalizedToolRequest,
          responses: entry.responses.map((r) => sortKeys(toRecordedTool(r)) as RecordedToolResult),
        }));
    }
    if (this.#toolLists.size > 0) {
      file.toolLists = Object.fromEntries(
        [...this.#toolLists].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v]),
      );
    }
    if (this.#answers.size > 0) {
      file.answers = Object.fromEntries(
        [...this.#answers].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })),
      );
    }
    return file;
  }

  /** A person's recorded answers by the name they were asked under (`agent1@t3`). */
  answers(): Record<string, string> {
    return Object.fromEntries(this.#answers);
  }

  /** Keeps a person's answer, so a replay can give it again. */
  recordAnswer(name: string, answer: string): void {
    this.#answers.set(name, answer);
  }

  /**
   * Which recorded answer of a request to give next: the cursor counts answers given and answers
   * recorded live in this run. Once they run out the last answer repeats, unless `fresh` is set:
   * then undefined says the request must be sent, as an unbroken run would send it.
   */
  #take(key: string, recorded: number, fresh: boolean): number | undefined {
    const cursor = this.#cursor.get(key) ?? 0;
    if (fresh && cursor >= recorded) return undefined;
    this.#cursor.set(key, cursor + 1);
    return cursor;
  }

  /** Writes the cassette; any key `redactor` knows (a server echoing a key) is scrubbed. */
  async save(path: string, redactor?: Redactor): Promise<void> {
    const text = JSON.stringify(this.toJSON(), null, 2);
    await writeFile(path, `${redactor ? redactor.text(text) : text}\n`, 'utf8');
  }

  /**
   * The next recorded response for this request, or undefined when it was never recorded. A
   * request asked more often than it was recorded gets the last answer again, unless `fresh`
   * is set: a run that goes live for what the record lacks (resume, fork, replay-then-live)
   * must send such a repeat as an unbroken run would, not reuse an answer it already had.
   */
  lookup(
    request: ChatRequest | NormalizedRequest,
    { fresh = false }: { fresh?: boolean } = {},
  ): RecordedResponse | undefined {
    const key = requestKey(request);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const served = this.#take(key, entry.responses.length, fresh);
    if (served === undefined) return undefined;
    const response = entry.responses[Math.min(served, entry.responses.length - 1)];
    return response && toRecorded(response);
  }

  /**
   * Why a request has no recording, in one line: where the nearest recorded request parts from
   * it (`messages[1].content[0].text: "…" here, "…" recorded`), or that there is none.
   */
  missReason(request: ChatRequest | NormalizedRequest): string {
    const requests = [...this.#entries.values()].map((entry) => entry.request);
    if (requests.length === 0)
      return `${this.source} holds no model answers (model "${request.model}", last user message "${clip(lastUserText(request as ChatRequest), 80)}")`;
    return `no recording of this request in ${this.source}${describeDifference(nearestDifference(normalizeRequest(request), requests))}`;
  }

  /** Like `missReason`, for an expert request. */
  expertMissReason(request: ExpertRequest | NormalizedExpertRequest): string {
    const requests = [...this.#experts.values()].map((entry) => entry.request);
    if (requests.length === 0)
      return `${this.source} holds no expert answers (expert "${request.model}", ${request.task})`;
    return `no recording of this expert request in ${this.source}${describeDifference(nearestDifference(normalizeExpertRequest(request), requests))}`;
  }

  /** The next recorded answer of an expert request, or undefined; `fresh` as in `lookup`. */
  lookupExpert(
    request: ExpertRequest | NormalizedExpertRequest,
    { fresh = false }: { fresh?: boolean } = {},
  ): ExpertResult | undefined {
    const key = expertKey(request);
    const entry = this.#experts.get(key);
    if (!entry) return undefined;
    const served = this.#take(key, entry.responses.length, fresh);
    if (served === undefined) return undefined;
    const response = entry.responses[Math.min(served, entry.responses.length - 1)]!;
    return fromRecordedExpert(response, (hash) => this.#blobs.get(hash), 'cassette');
  }

  /** Append a live expert answer to its request's entry. */
  recordExpert(request: ExpertRequest, result: ExpertResult): void {
    const normalized = normalizeExpertRequest(request);
    const key = expertKey(normalized);
    const recorded = toRecordedExpert(result, (blob) => {
      const hash = sha256Hex(blob.bytes);
      this.#blobs.set(hash, blob);
      return hash;
    });
    const entry = this.#experts.get(key);
    if (entry) entry.responses.push(recorded);
    else this.#experts.set(key, { key, request: normalized, responses: [recorded] });
    this.#cursor.set(key, (this.#cursor.get(key) ?? 0) + 1);
  }

  /** The next recorded result of a tool call, or undefined; `fresh` as in `lookup`. */
  lookupTool(
    request: Omit<NormalizedToolRequest, 'kind'>,
    { fresh = false }: { fresh?: boolean } = {},
  ): RecordedToolResult | undefined {
    const key = toolKey(request);
    const entry = this.#tools.get(key);
    if (!entry) return undefined;
    const served = this.#take(key, entry.responses.length, fresh);
    if (served === undefined) return undefined;
    const response = entry.responses[Math.min(served, entry.responses.length - 1)];
    return response && toRecordedTool(response);
  }

  /** Whether `lookupTool` would answer this call now (nothing is taken). */
  holdsTool(
    request: Omit<NormalizedToolRequest, 'kind'>,
    { fresh = false }: { fresh?: boolean } = {},
  ): boolean {
    const key = toolKey(request);
    const entry = this.#tools.get(key);
    return entry !== undefined && (!fresh || (this.#cursor.get(key) ?? 0) < entry.responses.length);
  }

  /** Append a tool call's result to its entry. */
  recordTool(request: Omit<NormalizedToolRequest, 'kind'>, result: RecordedToolResult): void {
    const key = toolKey(request);
    const normalized: NormalizedToolRequest = {
      kind: 'tool',
      source: request.source,
      tool: request.tool,
      arguments: request.arguments,
    };
    const entry = this.#tools.get(key);
    if (entry) entry.responses.push(toRecordedTool(result));
    else this.#tools.set(key, { key, request: normalized, responses: [toRecordedTool(result)] });
    this.#cursor.set(key, (this.#cursor.get(key) ?? 0) + 1);
  }

  /** The tools a source offered when the cassette was recorded, or undefined. */
  toolList(source: string): ToolDefinition[] | undefined {
    return this.#toolLists.get(source);
  }

  /** Keeps the tools a source offers, so a replay can offer them without opening it. */
  recordToolList(source: string, tools: ToolDefinition[]): void {
    this.#toolLists.set(source, tools);
  }

  /** Append a live answer to this request's entry. */
  record(request: ChatRequest | NormalizedRequest, result: RecordedResponse | ChatResult): void {
    const normalized = normalizeRequest(request);
    const key = requestKey(normalized);
    const entry = this.#entries.get(key);
    if (entry) entry.responses.push(toRecorded(result));
    else this.#entries.set(key, { key, request: normalized, responses: [toRecorded(result)] });
    // A recorded answer counts as served, so a replay-then-live run does not hand it out again.
    this.#cursor.set(key, (this.#cursor.get(key) ?? 0) + 1);
  }
}

/** Strict replay found no recording for a request. Not retryable: it will never appear. */
export class CassetteMissError extends ProviderError {
  readonly key: string;
  /** `reason` is the cassette's `missReason`: where the nearest recording parts from it. */
  constructor(key: string, reason: string) {
    super(reason, { retryable: false, code: 'cassette_miss' });
    this.name = 'CassetteMissError';
    this.key = key;
  }
}

/**
 * - `replay`: answer only from the cassette; a miss throws CassetteMissError.
 * - `replay-then-live`: answer from the cassette, else ask `live` and record its answer.
 * - `record`: always ask `live` and record its answer.
 */
export type CassetteMode = 'replay' | 'replay-then-live' | 'record';

export interface CassetteProviderOptions {
  cassette: Cassette;
  mode: CassetteMode;
  /** Required unless mode is 'replay'. */
  live?: ChatProvider;
  /** Defaults to the live provider's id, or 'cassette'. */
  id?: string;
}

/** A ChatProvider that replays and/or records a cassette around an optional live provider. */
export class CassetteProvider implements ChatProvider {
  readonly id: string;
  readonly cassette: Cassette;
  readonly mode: CassetteMode;
  readonly #live: ChatProvider | undefined;

  constructor(options: CassetteProviderOptions) {
    if (options.mode !== 'replay' && !options.live) {
      throw new Error(`cassette mode '${options.mode}' needs a live provider`);
    }
    this.cassette = options.cassette;
    this.mode = options.mode;
    this.#live = options.live;
    this.id = options.id ?? options.live?.id ?? 'cassette';
  }

  /** The live provider's load, when it may be called (a replay alone needs none). */
  ready(): Promise<void> | undefined {
    return this.mode === 'replay' ? undefined : this.#live?.ready?.();
  }

  async chat(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    if (options.signal.aborted) throw abortError(options.signal.reason);
    if (this.mode !== 'record') {
      const recorded = this.cassette.lookup(request, { fresh: this.mode === 'replay-then-live' });
      if (recorded) return replayed(recorded, request, options);
      if (this.mode === 'replay')
        throw new CassetteMissError(requestKey(request), this.cassette.missReason(request));
    }
    const result = await this.#live!.chat(request, options);
    this.cassette.record(request, result);
    return result;
  }
}

function replayed(
  recorded: RecordedResponse,
  request: ChatRequest,
  options: CallOptions,
): ChatResult {
  checkRecordedAnswer(Buffer.byteLength(recorded.text), options.maxAnswerBytes);
  // Streaming consumers still see deltas, so a replayed run looks like a live one.
  if (request.stream && options.onDelta) {
    for (const fragment of chunkWords(recorded.text)) options.onDelta(fragment);
  }
  const result: ChatResult = {
    text: recorded.text,
    usage: { ...recorded.usage },
    model: recorded.model,
    source: 'cassette',
  };
  if (recorded.finishReason !== undefined) result.finishReason = recorded.finishReason;
  if (recorded.simulated) result.simulated = true;
  if (recorded.toolCalls) result.toolCalls = recorded.toolCalls.map((c) => ({ ...c }));
  return result;
}
