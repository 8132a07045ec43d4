/**
 * A client for a simulator that speaks the reset/step protocol (protocol.ts), over HTTP or
 * WebSocket as its URL's scheme says. Every answer is checked before it is returned, and every
 * failure is one line that starts with the simulator's URL:
 *
 *   simulator http://127.0.0.1:5123 answered out of protocol to step: observation: expected text
 *
 * Each request is bounded: a timeout, a cap on the answer's size, and the run's own signal.
 */
import type { z } from 'zod';
import { displayUrl } from '../../providers/urls.ts';
import { allowCommand, originOf } from '../../runtime/origins.ts';
import { httpTransport } from './http.ts';
import {
  describeIssue,
  errorAnswer,
  PROTOCOL_VERSION,
  type RequestType,
  type ResetAnswer,
  type ResetRequest,
  resetAnswer,
  type StepAnswer,
  type StepRequest,
  stepAnswer,
} from './protocol.ts';
import { oneLine, SimulatorFailure, type SimulatorTransport } from './transport.ts';
import { SIMULATOR_SCHEMES } from './url.ts';
import { wsTransport } from './ws.ts';

/** The default cap on one answer: generous for text observations, small for memory. */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

export interface SimulatorClientOptions {
  /** How long one request may wait for its answer. */
  timeoutMs: number;
  /** Answers longer than this are refused (default 1 MiB). */
  maxAnswerBytes?: number;
  /** The run's signal: cancelling the run abandons the request. */
  signal?: AbortSignal;
  /**
   * The origins the user allowed (the run's `allowedOrigins`): a client for any other is
   * refused before it connects, whatever checks ran before.
   */
  allowedOrigins: ReadonlySet<string>;
}

/** A failure to talk to a simulator, as the one line a person reads. */
export class SimulatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulatorError';
  }
}

/** A connection to one simulator; `close` it when done. */
export interface SimulatorClient {
  readonly url: string;
  /** The URL as messages show it (no credentials, query or fragment). */
  readonly shownUrl: string;
  /** Starts an episode. */
  reset(request: Omit<ResetRequest, 'protocol'>): Promise<ResetAnswer>;
  /** Plays one action in a session. */
  step(request: Omit<StepRequest, 'protocol'>): Promise<StepAnswer>;
  close(): void;
}

/** A client for the simulator at `url` (http, https, ws or wss). */
export function simulatorClient(url: string, options: SimulatorClientOptions): SimulatorClient {
  const scheme = new URL(url).protocol;
  const origin = originOf(url);
  if (!origin || !options.allowedOrigins.has(origin)) {
    throw new SimulatorError(
      `simulator ${displayUrl(url)} was not contacted: ${origin ?? url} is not an origin you allowed (${allowCommand(origin ?? url)})`,
    );
  }
  const transportOptions = { maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES };
  const transport: SimulatorTransport =
    scheme === 'ws:' || scheme === 'wss:'
      ? wsTransport(url, transportOptions)
      : scheme === 'http:' || scheme === 'https:'
        ? httpTransport(url, transportOptions)
        : unsupported(scheme);
  const shown = displayUrl(url);

  async function send<S extends z.ZodType>(
    type: RequestType,
    body: Record<string, unknown>,
    schema: S,
  ): Promise<z.infer<S>> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let answer: unknown;
    try {
      answer = await transport.request(type, { protocol: PROTOCOL_VERSION, ...body }, signal);
    } catch (error) {
      if (error instanceof SimulatorFailure)
        throw new SimulatorError(`simulator ${shown} ${error.message}`);
      if (timeout.aborted && !options.signal?.aborted) {
        throw new SimulatorError(
          `simulator ${shown} did not answer ${type} within ${options.timeoutMs.toLocaleString('en-US')} ms (timeoutMs)`,
        );
      }
      throw error;
    }
    const refused = errorAnswer.safeParse(answer);
    if (refused.success) {
      throw new SimulatorError(
        `simulator ${shown} refused ${type}: ${oneLine(refused.data.error)}`,
      );
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      throw new SimulatorError(
        `simulator ${shown} answered out of protocol to ${type}: ${describeIssue(parsed.error)}`,
      );
    }
    return parsed.data;
  }

  return {
    url,
    shownUrl: shown,
    reset: ({ seed, options: extra }) =>
      send('reset', { seed, ...(extra ? { options: extra } : {}) }, resetAnswer),
    step: ({ session, action, step, agent }) =>
      send('step', { session, action, step, ...(agent ? { agent } : {}) }, stepAnswer),
    close: () => transport.close(),
  };
}

function unsupported(scheme: string): never {
  throw new SimulatorError(
    `a simulator is reached over ${SIMULATOR_SCHEMES.map((s) => s.slice(0, -1)).join(', ')}, not ${scheme.slice(0, -1)}`,
  );
}
