/**
 * What a transport does for the simulator client: carry one request to the simulator and bring
 * back its answer as parsed JSON. The protocol's checks are the client's (client.ts), so HTTP and
 * WebSocket say nothing about what an answer means, only whether one arrived and was JSON.
 */
import type { RequestType } from './protocol.ts';

/** One request and its answer, over whatever wire the URL's scheme chose. */
export interface SimulatorTransport {
  /**
   * Sends `body` as a `type` request; resolves with the answer's JSON (unchecked). Rejects with
   * a `SimulatorFailure` when no usable answer came, or with `signal`'s reason once it aborts.
   */
  request(type: RequestType, body: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Lets go of any connection; the transport is not used again. */
  close(): void;
}

/** What every transport is given. */
export interface TransportOptions {
  /** Answers longer than this many bytes are refused unread. */
  maxAnswerBytes: number;
}

/**
 * A transport's account of what went wrong, as the end of a sentence that starts with the
 * simulator's name (`could not be reached for step: connection refused`); the client adds the
 * start, so every line reads the same whatever the wire.
 */
export class SimulatorFailure extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'SimulatorFailure';
  }
}

/** Why a connection failed, in words, from a Node network error or its cause. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  const code = (cause as { code?: unknown })?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the simulator running?)';
    case 'ENOTFOUND':
      return 'no such host';
    case 'EAI_AGAIN':
      return 'its host name could not be looked up';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before an answer came';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host cannot be reached from this machine';
    default:
      return oneLine(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Text from another program, made safe for a one-line message: no breaks, not too long. */
export function oneLine(text: string, max = 200): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
