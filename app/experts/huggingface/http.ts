/**
 * The HTTP side of a Hugging Face call: the fetch handed to the client, which ties the call's
 * signal to every request (its model look-ups on the Hub included), applies the answer guard and
 * turns a failed response into a ProviderError while its headers (Retry-After) and body
 * (`estimated_time`) are still at hand; and the mapping of whatever else the client throws.
 */
import { STATUS_CODES } from 'node:http';
import type { AnswerGuard } from '../../providers/answer-guard.ts';
import type { ExpertRequest } from '../../providers/expert-types.ts';
import { parseRetryAfterMs } from '../../providers/retry.ts';
import { clip } from '../../providers/text.ts';
import { abortError, isAbortError, ProviderError } from '../../providers/types.ts';
import { isLocalUrl } from '../../providers/urls.ts';
import { invalidRequest } from './inputs.ts';
import { loadedHfLibrary } from './library.ts';
import { badResponse, isRecord, parseJson } from './outputs.ts';

/** Where a provider's calls go, as its failures name it. */
export interface HfEndpoint {
  /** The provider profile name. */
  id: string;
  /** How messages name where the call went: the profile and its URL or hosted service. */
  where: string;
  /** The access token, if any: never shown, and scrubbed from what servers say. */
  token?: string;
  /** The environment variable the token came from, named in messages. */
  tokenEnv?: string;
  /** The dedicated endpoint, when there is one. */
  endpointUrl?: string;
}

/** The message with the endpoint's token taken out of it. */
export function redactToken(endpoint: HfEndpoint, message: string): string {
  const { token } = endpoint;
  return token && token.length >= 4 ? message.split(token).join('[redacted]') : message;
}

/** Statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The server's own words from an error body: `error` (a string or `{message}`), `detail`... */
function serverMessageOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const { error, detail, message } = body;
  if (typeof error === 'string' && error) return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof detail === 'string' && detail) return detail;
  if (typeof message === 'string' && message) return message;
  return undefined;
}

/** The wait a loading model asks for: `estimated_time`, in seconds, in its 503 body. */
function estimatedTimeMs(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  const seconds = body.estimated_time;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0
    ? Math.round(seconds * 1000)
    : undefined;
}

export function statusError(
  endpoint: HfEndpoint,
  request: ExpertRequest,
  status: number,
  body: unknown,
  rawText: string,
  retryAfterMs: number | undefined,
): ProviderError {
  const reason = STATUS_CODES[status] ?? 'Error';
  const said = clip(
    redactToken(endpoint, serverMessageOf(body) ?? rawText) || 'no details in the response',
    500,
  );
  const errorType = isRecord(body) && typeof body.error_type === 'string' ? body.error_type : '';
  const base = { status, retryable: isRetryableStatus(status) };
  if (status === 401 || status === 403) {
    const source = endpoint.tokenEnv ? ` (${endpoint.tokenEnv})` : '';
    const hint = endpoint.token
      ? `check the Hugging Face access token${source} of provider profile "${endpoint.id}" and its permissions`
      : `no Hugging Face access token was sent; give provider profile "${endpoint.id}" a token${source}`;
    return new ProviderError(`HTTP ${status} ${reason} from ${endpoint.where}: ${said} (${hint})`, {
      ...base,
      code: 'unauthorized',
    });
  }
  if (status === 404) {
    return new ProviderError(
      `model "${request.model}" not found at ${endpoint.where} (HTTP 404): ${said}`,
      { ...base, code: 'model_not_found' },
    );
  }
  const waitMs = retryAfterMs ?? estimatedTimeMs(body);
  const loading = status === 503 && (estimatedTimeMs(body) !== undefined || /loading/i.test(said));
  if (loading) {
    const eta = waitMs === undefined ? '' : `, ready in about ${Math.ceil(waitMs / 1000)} s`;
    return new ProviderError(
      `model "${request.model}" is loading at ${endpoint.where} (HTTP 503${eta}): ${said}`,
      { ...base, retryAfterMs: waitMs, code: 'model_loading' },
    );
  }
  return new ProviderError(`HTTP ${status} ${reason} from ${endpoint.where}: ${said}`, {
    ...base,
    retryAfterMs: waitMs,
    code: errorType || undefined,
  });
}

/**
 * The fetch handed to the client for one call: every request carries the call's signal, goes
 * through the call's answer guard (size limit, no HTML pages), and a failed response becomes
 * a ProviderError before the client sees it.
 */
export function guardedFetch(
  endpoint: HfEndpoint,
  request: ExpertRequest,
  signal: AbortSignal,
  seen: { json?: unknown },
  answers: AnswerGuard,
): typeof fetch {
  return async (input, init) => {
    if (signal.aborted) throw abortError(signal.reason);
    let response: Response;
    try {
      response = await answers.fetch(input, { ...init, signal: init?.signal ?? signal });
    } catch (error) {
      if (signal.aborted || isAbortError(error)) throw abortError(signal.reason ?? error);
      if (error instanceof ProviderError) throw error;
      const cause = error instanceof Error ? error.cause : undefined;
      const detail =
        cause instanceof Error ? cause.message : error instanceof Error ? error.message : '';
      const hint =
        endpoint.endpointUrl && isLocalUrl(endpoint.endpointUrl)
          ? ' (is the local server running?)'
          : '';
      throw new ProviderError(
        redactToken(endpoint, `cannot reach ${endpoint.where}: ${detail || error}${hint}`),
        {
          retryable: true,
          code: 'connection_error',
          cause: error,
        },
      );
    }
    if (response.ok) {
      // Keep the JSON answer as sent, in case the client's own reading of it is too strict.
      if (response.headers.get('content-type')?.startsWith('application/json')) {
        try {
          seen.json = parseJson(await response.clone().text());
        } catch {
          // The client reads the same body next and reports the failure its own way.
          if (signal.aborted) throw abortError(signal.reason);
        }
      }
      return response;
    }
    const text = await response.text().catch(() => '');
    throw statusError(
      endpoint,
      request,
      response.status,
      parseJson(text),
      text,
      parseRetryAfterMs(response.headers),
    );
  };
}

export function mapError(
  endpoint: HfEndpoint,
  request: ExpertRequest,
  error: unknown,
  signal: AbortSignal,
  answers: AnswerGuard,
): Error {
  // Our signal aborted (run cancelled or per-call timeout): a cancellation, whatever shape
  // fetch or the client gave it.
  if (signal.aborted || isAbortError(error)) return abortError(signal.reason);
  // What the answer guard refused, however the client wrapped it on the way out.
  if (answers.failure) return answers.failure;
  if (error instanceof ProviderError) return error;
  // Not loaded yet, the library cannot have thrown.
  const library = loadedHfLibrary();
  if (
    library &&
    (error instanceof library.InferenceClientProviderApiError ||
      error instanceof library.InferenceClientHubApiError)
  ) {
    const { status, body } = error.httpResponse;
    const text = typeof body === 'string' ? body : '';
    return statusError(endpoint, request, status, body, text || error.message, undefined);
  }
  if (
    library &&
    (error instanceof library.InferenceClientInputError ||
      error instanceof library.InferenceClientRoutingError)
  ) {
    return invalidRequest(
      redactToken(endpoint, `${request.task} on ${endpoint.where}: ${error.message}`),
    );
  }
  if (library && error instanceof library.InferenceClientProviderOutputError) {
    return badResponse(request, redactToken(endpoint, error.message));
  }
  const message = error instanceof Error ? error.message : String(error);
  // A body that is not the JSON the content type promised, or fetch failing oddly mid-body, is
  // treated like a network error: transient more often than not.
  return new ProviderError(
    redactToken(endpoint, `${request.task} request to ${endpoint.where} failed: ${message}`),
    {
      retryable: true,
      code: 'network_error',
      cause: error,
    },
  );
}
