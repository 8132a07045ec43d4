/**
 * The fetch every live model and expert call goes through. It holds the answer to its limit
 * while the body is read (an answer past the limit is cut off and the connection dropped, so a
 * 200 MB body is never in memory whole), and it refuses a body that is not what the protocol
 * promised (a proxy's HTML error page, plain text where JSON belongs) before the SDK reads it.
 *
 * The SDKs wrap whatever a fetch throws in errors of their own, so the guard also keeps the
 * first thing it refused: the provider reports that, in our words, whatever came back out of the
 * SDK.
 */
import { STATUS_CODES } from 'node:http';
import { ProviderError } from './types.ts';

/** What a successful answer must be: JSON, a server-sent event stream, or anything but HTML. */
export type ExpectedBody = 'json' | 'event-stream' | 'any';

export interface AnswerGuardOptions {
  /** Who answers, as messages name it: `openai (https://api.openai.com/v1)`. */
  where: string;
  /** Largest body accepted, in bytes (`settings.limits.answerBytes`). */
  maxBytes: number;
  expect: ExpectedBody;
}

/** What the last response looked like, for messages about a body the SDK could not read. */
export interface SeenResponse {
  status: number;
  /** The media type without parameters, lower case; '' when the server sent none. */
  mediaType: string;
}

/** A fetch for one call, with what it refused and what it last saw. */
export interface AnswerGuard {
  fetch: typeof fetch;
  /** The first answer this guard refused, as the call should report it. */
  readonly failure: ProviderError | undefined;
  readonly seen: SeenResponse | undefined;
}

/** `8 MiB`, `512 KiB`, `100 bytes`: a size as a person reads it. */
export function formatBytes(bytes: number): string {
  const units: Array<[number, string]> = [
    [1024 * 1024 * 1024, 'GiB'],
    [1024 * 1024, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The error for an answer larger than the limit: never retried, since it would be again. */
export function answerTooLarge(where: string, maxBytes: number): ProviderError {
  return new ProviderError(
    `answer from ${where} went past ${formatBytes(maxBytes)} (settings.limits.answerBytes)`,
    { retryable: false, code: 'answer_too_large' },
  );
}

/**
 * Refuses a recorded answer (a cassette's, or a run's own record) larger than the run's limit:
 * a shared cassette is data like a shared document, and replaying it must not put more into
 * the run's record than a live call could.
 */
export function checkRecordedAnswer(bytes: number, maxBytes: number | undefined): void {
  if (maxBytes !== undefined && bytes > maxBytes) throw answerTooLarge('the cassette', maxBytes);
}

/** Statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function mediaTypeOf(headers: Headers): string {
  return headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
}

function isJsonType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isHtmlType(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/**
 * The error for a body of the wrong kind: `X answered with an HTML page, not JSON (HTTP 200,
 * text/html)`. An error status keeps its own retryability (a proxy's 502 page passes); a 2xx
 * of the wrong kind is a server or a URL that does not speak the protocol, and waiting will
 * not change that.
 */
export function wrongBody(
  where: string,
  seen: SeenResponse,
  wanted: 'JSON' | 'an event stream' | "the model's output",
): ProviderError {
  const html = isHtmlType(seen.mediaType);
  const what = html ? 'an HTML page' : seen.mediaType || 'a body with no content type';
  const reason = seen.status >= 400 ? ` ${STATUS_CODES[seen.status] ?? ''}`.trimEnd() : '';
  const type = html ? `, ${seen.mediaType}` : '';
  return new ProviderError(
    `${where} answered with ${what}, not ${wanted} (HTTP ${seen.status}${reason}${type})`,
    {
      status: seen.status,
      retryable: isRetryableStatus(seen.status),
      code: 'bad_response',
    },
  );
}

/** The response's body, erroring with `fail()` (and dropping the connection) past `maxBytes`. */
export function capped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  fail: () => Error,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      total += value.byteLength;
      if (total > maxBytes) {
        const error = fail();
        // Cancelling the body makes fetch drop the connection: nothing more is received.
        reader.cancel(error).catch(() => {});
        controller.error(error);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * True when `content-length` holds the body to the limit: declared, within it, and counting the
 * bytes that will be read (a compressed body is inflated by fetch, past its declared length).
 * fetch delivers no more than a response announced, so counting such a body as it arrives, on a
 * stream wrapped around fetch's own, would only cost time on every call.
 */
function boundedByLength(headers: Headers, maxBytes: number): boolean {
  const declared = headers.get('content-length');
  if (declared === null || !/^\d+$/.test(declared.trim())) return false;
  const encoding = headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') return false;
  return Number(declared) <= maxBytes;
}

/** Statuses whose responses have no body; a Response with one of them cannot be given one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A guarded fetch over `base` for one call. */
export function guardAnswers(base: typeof fetch, options: AnswerGuardOptions): AnswerGuard {
  let failure: ProviderError | undefined;
  let seen: SeenResponse | undefined;
  const refuse = (error: ProviderError): ProviderError => {
    failure ??= error;
    return error;
  };
  const guarded: typeof fetch = async (input, init) => {
    const response = await base(input, init);
    seen = { status: response.status, mediaType: mediaTypeOf(response.headers) };
    const refusal = check(response, seen);
    if (refusal) {
      response.body?.cancel().catch(() => {});
      throw refuse(refusal);
    }
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
    // A body whose length the server declared, within the limit, cannot go past it.
    if (boundedByLength(response.headers, options.maxBytes)) return response;
    const body = capped(response.body, options.maxBytes, () =>
      refuse(answerTooLarge(options.where, options.maxBytes)),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  function check(response: Response, at: SeenResponse): ProviderError | undefined {
    const length = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(length) && length > options.maxBytes) {
      return answerTooLarge(options.where, options.maxBytes);
    }
    if (isHtmlType(at.mediaType)) {
      // Error bodies are JSON whatever the call; a success is what the call asked for.
      const wanted = !response.ok
        ? 'JSON'
        : options.expect === 'event-stream'
          ? 'an event stream'
          : options.expect === 'json'
            ? 'JSON'
            : "the model's output";
      return wrongBody(options.where, at, wanted);
    }
    if (!response.ok || options.expect === 'any') return undefined;
    if (options.expect === 'json' && !isJsonType(at.mediaType)) {
      return wrongBody(options.where, at, 'JSON');
    }
    if (options.expect === 'event-stream' && at.mediaType !== 'text/event-stream') {
      return wrongBody(options.where, at, 'an event stream');
    }
    return undefined;
  }

  return {
    fetch: guarded,
    get failure() {
      return failure;
    },
    get seen() {
      return seen;
    },
  };
}
