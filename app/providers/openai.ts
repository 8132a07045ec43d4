/**
 * A ChatProvider for any server speaking the OpenAI Chat Completions protocol: api.openai.com,
 * Hugging Face's router, and local servers (Ollama, LM Studio, vLLM, llama.cpp).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { STATUS_CODES } from 'node:http';
import type { APIError, ClientOptions, default as OpenAI } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { type AnswerGuard, guardAnswers, wrongBody } from './answer-guard.ts';
import { parseRetryAfterMs } from './retry.ts';
import { clip, estimatePromptTokens, estimateTokens, messageText } from './text.ts';
import type {
  CallOptions,
  ChatMessage,
  ChatProvider,
  ChatRequest,
  ChatResult,
  TokenUsage,
} from './types.ts';
import { abortError, ProviderError } from './types.ts';
import { displayUrl, isLocalUrl } from './urls.ts';

/**
 * Local servers ignore the key, but the SDK refuses to start without one; this placeholder
 * makes it plain in any server log that no real key was sent.
 */
export const KEYLESS_PLACEHOLDER_KEY = 'no-key-needed';

/**
 * The SDK's own timeout, set far above any per-call timeout the engine uses so that it is
 * the engine (through the call's signal) that decides when a call has taken too long.
 */
const SDK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** Statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface OpenAICompatibleProviderOptions {
  /** Provider profile name, e.g. 'openai' or 'ollama'. */
  id: string;
  /** Base URL ending in /v1, e.g. http://localhost:11434/v1. */
  baseUrl: string;
  /** Omit for keyless local servers. */
  apiKey?: string;
  /** Env variable the key came from; only used to make a 401 message actionable. */
  apiKeyEnv?: string;
  /** OpenAI organization / project ids; never read from the environment by this class. */
  organization?: string;
  project?: string;
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: messageText(message) };
  }
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: messageText(message) || null,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  if (typeof message.content === 'string' || message.role !== 'user') {
    // Only user messages may carry images in the Chat Completions API.
    if (typeof message.content !== 'string' && message.content.some((p) => p.type === 'image')) {
      throw new ProviderError(`images are only allowed in user messages, not in ${message.role}`, {
        retryable: false,
        code: 'invalid_request',
      });
    }
    return { role: message.role, content: messageText(message) } as ChatCompletionMessageParam;
  }
  const content: ChatCompletionContentPart[] = message.content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: part.url } },
  );
  return { role: 'user', content };
}

/** The Chat Completions body for a request, without the `stream` switch. */
export function toOpenAIBody(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  // `extra` goes first so it can add fields but never replace the ones we own.
  const body: Record<string, unknown> = { ...request.extra };
  body.model = request.model;
  body.messages = request.messages.map(toOpenAIMessage);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.parameters,
      },
    }));
  }
  delete body.stream;
  delete body.stream_options;
  return body as unknown as ChatCompletionCreateParamsNonStreaming;
}

function usageOf(
  usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined,
  request: ChatRequest,
  text: string,
): TokenUsage {
  // Some local servers send no usage at all; estimate so budgets still move.
  return {
    promptTokens: usage?.prompt_tokens ?? estimatePromptTokens(request),
    completionTokens: usage?.completion_tokens ?? estimateTokens(text),
  };
}

/** A ChatProvider backed by the official `openai` SDK, pointed at any compatible server. */
export class OpenAICompatibleProvider implements ChatProvider {
  readonly id: string;
  readonly baseUrl: string;
  readonly #clientOptions: ClientOptions;
  readonly #apiKey: string | undefined;
  readonly #apiKeyEnv: string | undefined;

  constructor(options: OpenAICompatibleProviderOptions) {
    this.id = options.id;
    this.baseUrl = options.baseUrl;
    this.#apiKey = options.apiKey || undefined;
    this.#apiKeyEnv = options.apiKeyEnv;
    this.#clientOptions = {
      baseURL: options.baseUrl,
      apiKey: this.#apiKey ?? KEYLESS_PLACEHOLDER_KEY,
      // The engine retries (with its own backoff, budget and events), so the SDK must not.
      maxRetries: 0,
      timeout: SDK_TIMEOUT_MS,
      dangerouslyAllowBrowser: false,
      // Explicit nulls stop the SDK from reading OPENAI_* variables and sending them to
      // servers that are not OpenAI's.
      organization: options.organization ?? null,
      project: options.project ?? null,
      adminAPIKey: null,
      webhookSecret: null,
      // Every failure reaches the user as one line of ours; the SDK's own notes (a malformed
      // event, a failed connection) would break into the terminal around it.
      logLevel: 'off',
    };
  }

  /**
   * The provider's one client, made at its first call. Every call goes through its own answer
   * guard all the same: the client's fetch hands each request to the guard of the call it
   * belongs to (`callGuard`). Making a client per call cost CPU on every call, which shows
   * when many calls are in flight (bench/parallel-agents.ts).
   */
  #client: OpenAI | undefined;

  /** The SDK's load, until it has loaded (the engine awaits it before a call's clock starts). */
  ready(): Promise<void> | undefined {
    return sdk ? undefined : loadOpenAiSdk();
  }

  async chat(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    const { signal } = options;
    if (signal.aborted) throw abortError(signal.reason);
    const guard = guardAnswers((input, init) => fetch(input, init), {
      where: this.#where(),
      maxBytes: options.maxAnswerBytes ?? DEFAULT_LIMITS.answerBytes,
      expect: request.stream ? 'event-stream' : 'json',
    });
    const { default: Client } = sdk ?? (await openAiSdk());
    this.#client ??= new Client({ ...this.#clientOptions, fetch: guardedFetch });
    const client = this.#client;
    try {
      const body = toOpenAIBody(request);
      const result = await callGuard.run(guard, () =>
        request.stream
          ? this.#stream(client, guard, body, request, options)
          : this.#complete(client, guard, body, request, signal),
      );
      await connectionReleased();
      return result;
    } catch (error) {
      await connectionReleased();
      throw this.#mapError(error, signal, guard, request.stream === true);
    }
  }

  async #complete(
    client: OpenAI,
    guard: AnswerGuard,
    body: ChatCompletionCreateParamsNonStreaming,
    request: ChatRequest,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const completion: ChatCompletion = await client.chat.completions.create(body, { signal });
    if (typeof completion !== 'object' || completion === null) {
      // The SDK hands back the text of a body that was not JSON.
      throw wrongBody(this.#where(), guard.seen ?? { status: 200, mediaType: '' }, 'JSON');
    }
    const choice = completion.choices?.[0];
    if (!choice) {
      throw new ProviderError(`${this.#where()} returned a completion with no choices`, {
        retryable: false,
        code: 'bad_response',
      });
    }
    const text = choice.message?.content ?? '';
    const toolCalls = (choice.message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function'
        ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }]
        : [],
    );
    return {
      text,
      usage: usageOf(completion.usage, request, text),
      model: completion.model || request.model,
      finishReason: choice.finish_reason ?? undefined,
      source: 'live',
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  }

  async #stream(
    client: OpenAI,
    guard: AnswerGuard,
    base: ChatCompletionCreateParamsNonStreaming,
    request: ChatRequest,
    options: CallOptions,
  ): Promise<ChatResult> {
    const body: ChatCompletionCreateParamsStreaming = {
      ...base,
      stream: true,
      stream_options: { include_usage: true },
    };
    const stream = await client.chat.completions.create(body, { signal: options.signal });
    let text = '';
    let model = '';
    let finishReason: string | undefined;
    let usage: ChatCompletionChunk['usage'];
    // Tool calls arrive in pieces by index: the first piece names the call, later ones add to
    // its arguments.
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      // With include_usage the final chunk has no choices and carries the usage.
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta?.content;
      if (delta) {
        text += delta;
        options.onDelta?.(delta);
      }
      for (const piece of choice.delta?.tool_calls ?? []) {
        calls[piece.index] ??= { id: '', name: '', arguments: '' };
        const call = calls[piece.index]!;
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    // The SDK ends an aborted stream quietly, as if it were complete; a partial answer must
    // not pass for a whole one.
    if (options.signal.aborted) throw abortError(options.signal.reason);
    if (guard.failure) throw guard.failure;
    // Every server speaking the protocol ends an answer with a finish reason; a stream that
    // stops without one was cut off (a proxy timing out, a server dying mid-answer).
    if (!finishReason) {
      throw new ProviderError(
        `the event stream from ${this.#where()} ended before the answer was complete`,
        { retryable: true, code: 'truncated' },
      );
    }
    return {
      text,
      usage: usageOf(usage, request, text),
      model: model || request.model,
      finishReason,
      source: 'live',
      ...(calls.length > 0 ? { toolCalls: calls.filter(Boolean) } : {}),
    };
  }

  /** How messages name this server, worked out once: every call's answer guard is given it. */
  #whereText: string | undefined;

  #where(): string {
    this.#whereText ??= `${this.id} (${displayUrl(this.baseUrl)})`;
    return this.#whereText;
  }

  /** Remove the key from anything a server or the SDK put in a message. */
  #redact(message: string): string {
    const key = this.#apiKey;
    return key && key.length >= 4 ? message.split(key).join('[redacted]') : message;
  }

  #mapError(error: unknown, signal: AbortSignal, guard: AnswerGuard, streaming: boolean): Error {
    // Our signal aborted (run cancel or per-call timeout): that is a cancellation, whatever
    // shape the SDK or fetch gave it.
    if (signal.aborted || (sdk && error instanceof sdk.APIUserAbortError))
      return abortError(signal.reason);
    // What the guard refused, however the SDK wrapped it on the way out.
    if (guard.failure) return guard.failure;
    if (error instanceof ProviderError) return error;
    if (sdk && error instanceof sdk.APIConnectionError) {
      const cause = error.cause instanceof Error ? error.cause : undefined;
      const detail = cause?.cause instanceof Error ? cause.cause.message : cause?.message;
      if (detail && CLOSED.test(detail)) {
        return new ProviderError(
          `${this.#where()} closed the connection before answering (${detail})`,
          { retryable: true, code: 'connection_closed' },
        );
      }
      const hint = isLocalUrl(this.baseUrl) ? ' (is the local server running?)' : '';
      return new ProviderError(
        this.#redact(`cannot reach ${this.#where()}: ${detail || error.message}${hint}`),
        { retryable: true, code: 'connection_error' },
      );
    }
    if (sdk && error instanceof sdk.APIError && typeof error.status === 'number') {
      const status = error.status;
      const code = error.code ?? error.type ?? undefined;
      const serverMessage = apiErrorMessage(error);
      const hint =
        status === 401 && this.#apiKeyEnv ? ` (check the key in ${this.#apiKeyEnv})` : '';
      const reason = STATUS_CODES[status] ?? 'Error';
      // A 429 for an exhausted quota will not clear by waiting; everything else 429 will.
      const quota = status === 429 && code === 'insufficient_quota';
      return new ProviderError(this.#redact(`HTTP ${status} ${reason}: ${serverMessage}${hint}`), {
        status,
        code,
        retryable: isRetryableStatus(status) && !quota,
        retryAfterMs: parseRetryAfterMs(error.headers),
      });
    }
    const message = error instanceof Error ? error.message : String(error);
    // A body cut off or garbled on the way is transient more often than not: all of these are
    // retried like network errors.
    if (error instanceof SyntaxError) {
      const what = streaming
        ? `the event stream from ${this.#where()} carried an event that is not JSON (cut off or garbled)`
        : `${this.#where()} answered with JSON that does not parse (${message})`;
      return new ProviderError(this.#redact(clip(what, 500)), {
        retryable: true,
        code: 'bad_response',
      });
    }
    if (error instanceof Error && (TERMINATED.test(message) || CLOSED.test(message))) {
      return new ProviderError(
        `${this.#where()} closed the connection in the middle of the answer`,
        { retryable: true, code: 'connection_closed' },
      );
    }
    return new ProviderError(
      this.#redact(clip(`request to ${this.#where()} failed: ${message}`, 500)),
      { retryable: true, code: 'network_error' },
    );
  }
}

/** The answer guard of the call whose requests are going out, in that call's async context. */
const callGuard = new AsyncLocalStorage<AnswerGuard>();

/** The fetch of a provider's client: each request goes through its own call's guard. */
const guardedFetch: typeof fetch = (input, init) => {
  const guard = callGuard.getStore();
  if (!guard) {
    // Never expected: every call runs its requests inside `callGuard.run`. Refusing beats
    // reading an answer with no size limit.
    return Promise.reject(
      new ProviderError('a model request went out without its answer guard', {
        retryable: false,
        code: 'internal',
      }),
    );
  }
  return guard.fetch(input, init);
};

/** How fetch (undici) says the server dropped the connection before it answered. */
const CLOSED = /other side closed|socket hang up|ECONNRESET/i;
/** How it says the body stopped arriving part-way. */
const TERMINATED = /^terminated$/;

/**
 * The SDK, loaded with the first call a process makes, not with every command that could make
 * one (a queue's coordinator, whose runs happen on workers, never does): it is hundreds of
 * modules. Its error classes are read from here once a call has failed.
 */
let sdk: typeof import('openai') | undefined;

/** The SDK, loaded at the first call for it. */
async function openAiSdk(): Promise<typeof import('openai')> {
  sdk ??= await import('openai');
  return sdk;
}

/** Loads the SDK now: a process about to make calls (a queue worker) pays for it up front. */
export async function loadOpenAiSdk(): Promise<void> {
  await openAiSdk();
}

/** The server's own words from an APIError, without the SDK's status prefix, kept short. */
function apiErrorMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string' && body.message) return clip(body.message, 500);
  const text = error.message.replace(/^\d{3}\s+/, '');
  return clip(text || 'no details in the response body', 500);
}

/**
 * Settles one turn of the event loop later. fetch (undici) gives an HTTP/1.1 connection back to
 * its pool only a full turn after the answer ended (to see whether the server closes it), and a
 * request made before that, such as the next call waiting in the provider's queue, opens a
 * connection of its own: with 10 calls in flight, 50 calls opened some 18 connections instead
 * of 10, and against a remote server each costs a TLS handshake. Waiting that turn before a
 * call returns lets the next one reuse the connection.
 */
function connectionReleased(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
