/**
 * A scripted, in-process ChatProvider for engine tests. Pass `fake.providerFor` to `startRun`:
 * every model call of the run lands here. The test decides each answer (text, usage, delay,
 * failure, or "hold until I release it"), and afterwards reads what was asked, how many calls
 * were in flight at once, and how many were aborted.
 */

import { raceAbort } from '../../app/providers/retry.ts';
import { messageText } from '../../app/providers/text.ts';
import {
  abortError,
  type CallOptions,
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  ProviderError,
} from '../../app/providers/types.ts';

export interface FakeReply {
  text: string;
  usage?: { promptTokens: number; completionTokens: number };
  /** Answer after this long (abortable). */
  delayMs?: number;
  /** Answer only when this promise settles (abortable): lets a test hold a call in flight. */
  after?: Promise<unknown>;
}

/** What a script returns: a text, a full reply, or an Error to fail the call with. */
export type FakeAnswer = string | FakeReply | Error;

export interface FakeCall {
  /** 0-based, in the order calls reached the provider. */
  index: number;
  request: ChatRequest;
  /** The system prompt and the last user message, as plain text. */
  system: string;
  user: string;
  /** True when the last user message carries an image part. */
  hasImage: boolean;
  aborted: boolean;
  done: boolean;
}

export type FakeScript = (call: FakeCall) => FakeAnswer | Promise<FakeAnswer>;

export class FakeProvider implements ChatProvider {
  readonly id: string;
  readonly calls: FakeCall[] = [];
  #script: FakeScript;
  #inFlight = 0;
  #peak = 0;

  constructor(script: FakeScript = (call) => `answer ${call.index}`, id = 'fake') {
    this.#script = script;
    this.id = id;
  }

  /** For `RunOptions.providerFor`: every provider profile is answered by this fake. */
  readonly providerFor = (): ChatProvider => this;

  /** Replaces the script for the calls still to come. */
  script(script: FakeScript): void {
    this.#script = script;
  }

  get peakConcurrency(): number {
    return this.#peak;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get aborted(): number {
    return this.calls.filter((c) => c.aborted).length;
  }

  /** Calls whose user message contains `text`. */
  callsMentioning(text: string): FakeCall[] {
    return this.calls.filter((c) => c.user.includes(text) || c.system.includes(text));
  }

  async chat(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    const last = [...request.messages].reverse().find((m) => m.role === 'user');
    const call: FakeCall = {
      index: this.calls.length,
      request,
      system: request.messages
        .filter((m) => m.role === 'system')
        .map(messageText)
        .join('\n'),
      user: last ? messageText(last) : '',
      hasImage: hasImage(last),
      aborted: false,
      done: false,
    };
    this.calls.push(call);
    this.#inFlight++;
    this.#peak = Math.max(this.#peak, this.#inFlight);
    try {
      const answer = await this.#script(call);
      if (answer instanceof Error) throw answer;
      const reply = typeof answer === 'string' ? { text: answer } : answer;
      if (reply.delayMs) await raceAbort(sleep(reply.delayMs), options.signal);
      if (reply.after) await raceAbort(reply.after, options.signal);
      if (options.signal.aborted) throw abortError(options.signal.reason);
      return {
        text: reply.text,
        usage: reply.usage ?? { promptTokens: 10, completionTokens: 5 },
        model: request.model,
        finishReason: 'stop',
        source: 'live',
      };
    } catch (error) {
      if (options.signal.aborted) call.aborted = true;
      throw error;
    } finally {
      call.done = true;
      this.#inFlight--;
    }
  }
}

/** A failure the engine must not retry (like a 400). */
export function fatal(message: string): ProviderError {
  return new ProviderError(message, { status: 400, retryable: false });
}

/** A promise with its resolver, for holding calls until the test lets them go. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function hasImage(message: ChatMessage | undefined): boolean {
  return (
    message !== undefined &&
    typeof message.content !== 'string' &&
    message.content.some((p) => p.type === 'image')
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
