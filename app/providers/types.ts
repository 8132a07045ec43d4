/**
 * The contract between the run engine and anything that answers a model call: the OpenAI
 * client, the simulated provider, cassettes. Providers are dumb transports: the engine owns
 * retries, timeouts, budgets, concurrency and events, so a provider makes exactly one attempt.
 */
import type { ToolCall, ToolDefinition } from './tools.ts';

/** One part of a multimodal user message. Images travel as data URLs or http(s) URLs. */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; url: string; mime?: string; sha256?: string };

/**
 * One message of a conversation. An assistant message may carry the tool calls the model asked
 * for (its text then often empty); a `tool` message answers one of them by its id.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ChatContentPart[];
  /** On an assistant message: the tools the model asked to call. */
  toolCalls?: ToolCall[];
  /** On a tool message: the id of the call it answers. */
  toolCallId?: string;
}

/** A provider-neutral chat request. `model` is the provider's own model id. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Ask the provider to stream; deltas are reported through `CallOptions.onDelta`. */
  stream?: boolean;
  /** Extra body fields passed through unchanged (for example `seed` or `top_p`). */
  extra?: Record<string, unknown>;
  /** Tools the model may call (function calling); absent or empty: none. */
  tools?: ToolDefinition[];
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  /** The model id the server says answered. */
  model: string;
  finishReason?: string;
  /** True when the text was made up by the simulated provider; shown everywhere it appears. */
  simulated?: boolean;
  /** Where the answer came from: a live server, a cassette, or the simulator. */
  source: 'live' | 'cassette' | 'simulated';
  /** The tools the model asks to call before it answers (function calling). */
  toolCalls?: ToolCall[];
}

export interface CallOptions {
  signal: AbortSignal;
  /** Called with each streamed text fragment, in order. */
  onDelta?: (text: string) => void;
  /**
   * Largest answer accepted, in bytes (the run's `settings.limits.answerBytes`; the default
   * limit when absent). A provider reading from the network stops reading there and fails the
   * call; cassettes refuse a recorded answer larger than this.
   */
  maxAnswerBytes?: number;
  /**
   * Largest image read or made, in pixels (the run's `settings.limits.imagePixels`; the default
   * limit when absent). Whatever decodes an image checks its header against this first.
   */
  maxImagePixels?: number;
  /**
   * The shape of answer the calling node needs, for the simulated provider only: live
   * providers and cassettes ignore it, and it is no part of a cassette key.
   */
  answerShape?: AnswerShape;
}

/**
 * What the engine needs to know about a failure to decide whether to try again.
 * Providers throw this (or a subclass); anything else is treated as a network error.
 */
export class ProviderError extends Error {
  readonly status: number | undefined;
  /** Server-suggested wait before the next attempt, from retry-after-ms or Retry-After. */
  readonly retryAfterMs: number | undefined;
  readonly retryable: boolean;
  readonly code: string | undefined;
  constructor(
    message: string,
    opts: {
      status?: number;
      retryAfterMs?: number;
      retryable: boolean;
      code?: string;
      cause?: unknown;
    },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'ProviderError';
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.retryable = opts.retryable;
    this.code = opts.code;
  }
}

/** A transport that answers chat requests. One instance per provider profile. */
export interface ChatProvider {
  /** The provider profile name, used for concurrency limits and in events. */
  readonly id: string;
  chat(request: ChatRequest, options: CallOptions): Promise<ChatResult>;
  /**
   * What the provider still has to load before it can call (its client library), when it loads
   * that lazily; undefined once it is ready. The engine awaits it before a call's clock starts,
   * so a per-call timeout never counts a module load.
   */
  ready?(): Promise<void> | undefined;
}

/**
 * A provider profile says how to reach a provider; it never holds a key. Keys are looked up
 * at call time from the environment variable the profile names.
 */
export interface ProviderProfile {
  name: string;
  /** `huggingface` profiles serve expert models (a hosted provider, or the endpoint at baseUrl). */
  kind: 'openai-compatible' | 'huggingface' | 'simulated';
  baseUrl?: string;
  /** Environment variable holding the key, e.g. OPENAI_API_KEY. Local servers need none. */
  apiKeyEnv?: string;
  /** Default concurrent calls for this provider. */
  concurrency?: number;
}

/**
 * Make the error a cancelled call rejects with. Its name is 'AbortError' (like the DOM's), so
 * the engine can tell a cancellation, which must never be retried or reported as a failure,
 * from a provider failure. The abort reason is kept as `cause`.
 */
export function abortError(reason?: unknown): Error {
  const err = new Error('the model call was cancelled', { cause: reason });
  err.name = 'AbortError';
  return err;
}

/** True for errors produced by cancelling a call (ours, the DOM's or the SDK's). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/**
 * What shape of answer a node asks a model for, said to the simulated provider. A real model
 * reads the prompt; the simulator cannot, so a node that needs a particular shape (JSON, one of
 * the options it offered, a ballot naming a candidate, commands for a game) says so beside the
 * request. It travels in `CallOptions`, never in the request: real providers and the cassette
 * key never see it, so recordings made without it still replay.
 *
 * - `json`: a JSON value, valid against `schema` (a JSON Schema) when one is given; without
 *   one, shaped like the first JSON example the prompt holds.
 * - `choice`: one of the options the prompt offers as "(a) …", "(b) …", or of `options` when
 *   given (answered by its letter).
 * - `ballot`: a ballot a vote can count: one candidate's name, a ranking of all of them
 *   (`ranking`), or a few approved names (`approval`).
 * - `custom`: the node composes the answer from the request itself (a game's commands read
 *   from the state in the prompt); `draw(n)` gives a seeded integer in [0, n).
 */
export type AnswerShape =
  | { kind: 'json'; schema?: Record<string, unknown> }
  | { kind: 'choice'; options?: string[] }
  | { kind: 'ballot'; candidates: string[]; form: 'single' | 'ranking' | 'approval' }
  | { kind: 'custom'; answer: (request: ChatRequest, draw: (n: number) => number) => string };
