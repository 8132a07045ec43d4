/**
 * An ExpertProvider for Hugging Face: the hosted Inference Providers (reached through the
 * router, with the provider picked per model) or one dedicated endpoint (an Inference Endpoint,
 * or any server that speaks the same HTTP protocol, such as a local one).
 *
 * It drives the official `@huggingface/inference` client, one attempt per call: the client's own
 * retry on 503 is switched off because the engine owns retries. Every HTTP exchange goes through
 * a guard around `fetch` that ties the call's signal to every request the client makes (its model
 * look-ups on the Hub included) and turns a failed response into a ProviderError while the
 * response's headers (Retry-After) and body (`estimated_time`) are still at hand; the client's own
 * errors drop the headers.
 */
import { STATUS_CODES } from 'node:http';
import {
  type FeatureExtractionArgs,
  getProviderHelper,
  InferenceClient,
  InferenceClientHubApiError,
  InferenceClientInputError,
  InferenceClientProviderApiError,
  InferenceClientProviderOutputError,
  InferenceClientRoutingError,
  type InferenceProviderOrPolicy,
  makeRequestOptions,
  type Options,
  type QuestionAnsweringArgs,
  setLogger,
  type TextGenerationInput,
  type TranslationArgs,
} from '@huggingface/inference';
import { type AnswerGuard, guardAnswers } from '../providers/answer-guard.ts';
import { parseRetryAfterMs } from '../providers/openai.ts';
import { clip } from '../providers/text.ts';
import type { CallOptions } from '../providers/types.ts';
import { abortError, isAbortError, ProviderError } from '../providers/types.ts';
import { displayUrl, isLocalUrl } from '../providers/urls.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import type {
  BinaryValue,
  ExpertOutputValue,
  ExpertProvider,
  ExpertRequest,
  ExpertResult,
  ExpertTask,
  LabelValue,
} from './types.ts';
import { isBinaryValue } from './types.ts';
import { meanPool } from './vectors.ts';

export interface HuggingFaceExpertProviderOptions {
  /** Provider profile name, used in messages, events and concurrency limits. */
  id: string;
  /** A Hugging Face access token (or a third-party provider key). Omit for open local servers. */
  token?: string;
  /** The environment variable the token came from (e.g. HF_TOKEN); only named in messages. */
  tokenEnv?: string;
  /**
   * A dedicated endpoint that serves the model, e.g. an Inference Endpoint URL or a local server.
   * `{model}` in it is replaced by the request's model id (slashes kept), so one URL template can
   * reach a server that routes by model, such as `http://host/models/{model}`. Without it the
   * call goes to the hosted Inference Providers.
   */
  endpointUrl?: string;
  /**
   * Which hosted Inference Provider runs the model ('hf-inference', 'fal-ai', ...) or 'auto'
   * (the default: the first provider in the account's preference order that serves the model).
   * Meaningless with `endpointUrl`.
   */
  inferenceProvider?: string;
  /** The fetch to use, for proxies and tests. Defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** What a binary output is called when the server does not say and the bytes do not tell. */
const DEFAULT_IMAGE_MIME = 'image/png';
const DEFAULT_AUDIO_MIME = 'audio/flac';

/** Where a call goes and how the client is told so, per request. */
interface Target {
  model: string;
  endpointUrl?: string;
  provider?: InferenceProviderOrPolicy;
}

/** What a task runner gets: the client, where to send the call and the per-call options. */
interface TaskContext {
  client: InferenceClient;
  request: ExpertRequest;
  target: Target;
  options: Options;
  /** The access token, for the one task the client has no method for. */
  token?: string;
}

/** A failure that the caller made, which no retry can fix. */
function invalidRequest(message: string): ProviderError {
  return new ProviderError(message, { retryable: false, code: 'invalid_request' });
}

/** The server answered 2xx with something we cannot read as the task's output. */
function badResponse(request: ExpertRequest, detail: string): ProviderError {
  return new ProviderError(
    `${request.task} response from model "${request.model}" is not what the task returns: ${detail}`,
    { retryable: false, code: 'bad_response' },
  );
}

function missingInput(request: ExpertRequest, name: string, what: string): ProviderError {
  const given = Object.keys(request.inputs);
  const list = given.length > 0 ? given.join(', ') : 'none';
  return invalidRequest(
    `${request.task} needs the input "${name}" (${what}); inputs given: ${list}`,
  );
}

function textInput(request: ExpertRequest, name: string): string {
  const value = request.inputs[name];
  if (value === undefined) throw missingInput(request, name, 'text');
  if (typeof value !== 'string') {
    throw invalidRequest(`${request.task} input "${name}" must be text, got ${value.mime} bytes`);
  }
  return value;
}

function optionalTextInput(request: ExpertRequest, name: string): string | undefined {
  return request.inputs[name] === undefined ? undefined : textInput(request, name);
}

/** Bytes from a `data:` URL, for a caller who hands an image over as text. */
function fromDataUrl(url: string): BinaryValue | undefined {
  const match = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
  if (!match) return undefined;
  const [, mime, base64, payload = ''] = match;
  try {
    const bytes = base64
      ? Buffer.from(payload, 'base64')
      : Buffer.from(decodeURIComponent(payload), 'utf8');
    return { bytes: new Uint8Array(bytes), mime: mime || 'application/octet-stream' };
  } catch {
    return undefined;
  }
}

function binaryInput(request: ExpertRequest, name: string, kind: 'image' | 'audio'): Blob {
  const value = request.inputs[name];
  if (value === undefined) throw missingInput(request, name, `${kind} bytes`);
  const binary = typeof value === 'string' ? fromDataUrl(value) : value;
  if (!isBinaryValue(binary)) {
    throw invalidRequest(
      `${request.task} input "${name}" must be ${kind} bytes (or a data: URL), got text`,
    );
  }
  return new Blob([binary.bytes as Uint8Array<ArrayBuffer>], { type: binary.mime });
}

function parametersOf(request: ExpertRequest): Record<string, unknown> | undefined {
  const parameters = request.parameters;
  return parameters && Object.keys(parameters).length > 0 ? { ...parameters } : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The string under `key` in the answer (or in its first element, for list answers). */
function textField(request: ExpertRequest, value: unknown, key: string): string {
  const first = Array.isArray(value) ? value[0] : value;
  if (isRecord(first) && typeof first[key] === 'string') return first[key];
  throw badResponse(request, `expected an object with a string "${key}"`);
}

/** Classes (and boxes, for detectors) sorted best first. */
function toLabels(request: ExpertRequest, value: unknown, withBox: boolean): LabelValue[] {
  // Some servers wrap one input's classes in an outer list: [[{label, score}, ...]].
  const list =
    Array.isArray(value) && value.length === 1 && Array.isArray(value[0]) ? value[0] : value;
  if (!Array.isArray(list)) throw badResponse(request, 'expected a list of labels');
  const labels = list.map((item): LabelValue => {
    if (!isRecord(item) || typeof item.label !== 'string' || typeof item.score !== 'number') {
      throw badResponse(request, 'expected {label, score} items');
    }
    const label: LabelValue = { label: item.label, score: item.score };
    if (withBox && isRecord(item.box)) {
      const { xmin, ymin, xmax, ymax } = item.box;
      if ([xmin, ymin, xmax, ymax].every((n) => typeof n === 'number')) {
        label.box = {
          xmin: xmin as number,
          ymin: ymin as number,
          xmax: xmax as number,
          ymax: ymax as number,
        };
      }
    }
    return label;
  });
  return labels.sort((a, b) => b.score - a.score);
}

function isNumberList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((n) => typeof n === 'number');
}

/**
 * One vector for one text. Servers answer feature extraction in several shapes: a vector (the
 * model pools for itself), one row holding the vector (`[[...]]`), or one vector per token
 * (`[[...], [...], ...]`, for models with no pooling of their own), possibly inside a batch of
 * one (`[[[...], ...]]`). Per-token vectors are mean-pooled here into one vector, the usual
 * sentence embedding, so an expert's output is always a single `number[]`.
 */
export function toVector(value: unknown): number[] | undefined {
  if (typeof value === 'number') return [value];
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (isNumberList(value)) return value;
  if (value.length === 1 && Array.isArray(value[0]) && !isNumberList(value[0])) {
    return toVector(value[0]);
  }
  if (!value.every(isNumberList)) return undefined;
  const rows = value as number[][];
  const width = rows[0]?.length ?? 0;
  if (rows.some((row) => row.length !== width)) return undefined;
  return meanPool(rows);
}

/**
 * One vector per token, when the server sent them: `[[...], ...]`, possibly inside a batch of
 * one. Undefined for a single pooled vector (the server pooled for itself) or a ragged answer.
 */
export function toTokenVectors(value: unknown): number[][] | undefined {
  if (!Array.isArray(value) || value.length === 0 || isNumberList(value)) return undefined;
  if (value.length === 1 && Array.isArray(value[0]) && !isNumberList(value[0])) {
    return toTokenVectors(value[0]);
  }
  if (!value.every(isNumberList)) return undefined;
  const rows = value as number[][];
  const width = rows[0]?.length ?? 0;
  return width > 0 && rows.every((row) => row.length === width) ? rows : undefined;
}

/**
 * Feature extraction's own switch, never sent to the server: `pooling: 'mean'` (the default)
 * mean-pools per-token vectors into one; `pooling: 'none'` keeps them, for token-level metrics
 * such as BERTScore. The other parameters go to the server unchanged.
 */
function poolingOf(request: ExpertRequest): 'mean' | 'none' {
  const pooling = request.parameters?.pooling;
  if (pooling === undefined || pooling === 'mean') return 'mean';
  if (pooling === 'none') return 'none';
  throw invalidRequest(
    `feature-extraction parameter "pooling" must be "mean" or "none", got ${JSON.stringify(pooling)}`,
  );
}

function serverParameters(request: ExpertRequest): Record<string, unknown> | undefined {
  const parameters = parametersOf(request);
  if (parameters) delete parameters.pooling;
  return parameters && Object.keys(parameters).length > 0 ? parameters : undefined;
}

/**
 * Image embeddings. The client has no image-feature-extraction task (4.13), so the request is
 * built by the client's own helpers for hf-inference (URL, headers, and on the hosted service
 * its check that the model is served for this task) and sent through the call's guarded fetch:
 * the image is the raw body, as for image classification. Only hf-inference and dedicated
 * endpoints speak this protocol; other hosted providers offer no such task.
 */
async function imageFeatures({ request, target, options, token }: TaskContext): Promise<unknown> {
  const data = binaryInput(request, 'image', 'image');
  if (target.provider && target.provider !== 'auto' && target.provider !== 'hf-inference') {
    throw new ProviderError(
      `image-feature-extraction runs on hf-inference or a dedicated endpoint only, not on provider "${target.provider}"`,
      { retryable: false, code: 'unsupported_task' },
    );
  }
  const { url, info } = await makeRequestOptions(
    {
      model: target.model,
      ...(target.endpointUrl ? { endpointUrl: target.endpointUrl } : {}),
      ...(token ? { accessToken: token } : {}),
      data,
    },
    getProviderHelper('hf-inference', undefined),
    { task: 'image-feature-extraction', ...options },
  );
  const response = await (options.fetch ?? fetch)(url, { ...info, signal: options.signal });
  const text = await response.text();
  const json = parseJson(text);
  if (json === undefined) throw badResponse(request, 'expected JSON numbers');
  return json;
}

/** Fill-mask: the sequence of the best-scored candidate, whatever order the server used. */
function bestSequence(request: ExpertRequest, value: unknown): string {
  if (!Array.isArray(value) || value.length === 0) {
    throw badResponse(request, 'expected a non-empty list of candidates');
  }
  let best: { sequence: string; score: number } | undefined;
  for (const candidate of value) {
    if (!isRecord(candidate) || typeof candidate.sequence !== 'string') continue;
    const score = typeof candidate.score === 'number' ? candidate.score : -Infinity;
    if (!best || score > best.score) best = { sequence: candidate.sequence, score };
  }
  if (!best) throw badResponse(request, 'expected candidates with a string "sequence"');
  return best.sequence;
}

/** Recognise common image and audio formats from their first bytes. */
function sniffMime(bytes: Uint8Array): string | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (ascii(0, 3) === 'ID3' || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) {
    return 'audio/mpeg';
  }
  return undefined;
}

/**
 * Bytes with their MIME type: the type the server declared, else what the bytes look like,
 * else the task's usual format.
 */
async function toBinary(
  request: ExpertRequest,
  value: unknown,
  fallbackMime: string,
): Promise<BinaryValue> {
  if (!(value instanceof Blob)) throw badResponse(request, 'expected binary content');
  const bytes = new Uint8Array(await value.arrayBuffer());
  const declared = value.type.split(';')[0]?.trim().toLowerCase() ?? '';
  const mime =
    declared && declared !== 'application/octet-stream'
      ? declared
      : (sniffMime(bytes) ?? fallbackMime);
  return { bytes, mime };
}

/**
 * How each task is run: `call` checks the request's inputs (before anything is sent) and makes
 * the client call; `read` turns what came back into the task's output.
 */
interface TaskSpec {
  call(ctx: TaskContext): Promise<unknown>;
  read(request: ExpertRequest, value: unknown): ExpertOutputValue | Promise<ExpertOutputValue>;
}

const TASKS: Record<ExpertTask, TaskSpec> = {
  'image-to-text': {
    call: ({ client, request, target, options }) =>
      client.imageToText(
        {
          ...target,
          inputs: binaryInput(request, 'image', 'image'),
          parameters: parametersOf(request),
        },
        options,
      ),
    read: (request, value) => textField(request, value, 'generated_text'),
  },
  'visual-question-answering': {
    call: ({ client, request, target, options }) => {
      const image = binaryInput(request, 'image', 'image');
      const question = textInput(request, 'question');
      return client.visualQuestionAnswering(
        { ...target, inputs: { image, question }, parameters: parametersOf(request) },
        options,
      );
    },
    read: (request, value) => textField(request, value, 'answer'),
  },
  'text-to-image': {
    call: ({ client, request, target, options }) =>
      client.textToImage(
        { ...target, inputs: textInput(request, 'prompt'), parameters: parametersOf(request) },
        { ...options, outputType: 'blob' },
      ),
    read: (request, value) => toBinary(request, value, DEFAULT_IMAGE_MIME),
  },
  'image-to-image': {
    call: ({ client, request, target, options }) => {
      const image = binaryInput(request, 'image', 'image');
      const prompt = optionalTextInput(request, 'prompt');
      // The prompt travels as a task parameter. With parameters the client sends the image as
      // base64 JSON; without any, as the raw request body.
      const parameters = { ...parametersOf(request), ...(prompt === undefined ? {} : { prompt }) };
      return client.imageToImage(
        {
          ...target,
          inputs: image,
          parameters: Object.keys(parameters).length > 0 ? parameters : undefined,
        },
        options,
      );
    },
    read: (request, value) => toBinary(request, value, DEFAULT_IMAGE_MIME),
  },
  'image-classification': {
    // The image is the raw request body, so the protocol leaves no room for task parameters.
    call: ({ client, request, target, options }) =>
      client.imageClassification(
        { ...target, inputs: binaryInput(request, 'image', 'image') },
        options,
      ),
    read: (request, value) => toLabels(request, value, false),
  },
  'object-detection': {
    call: ({ client, request, target, options }) =>
      client.objectDetection(
        { ...target, inputs: binaryInput(request, 'image', 'image') },
        options,
      ),
    read: (request, value) => toLabels(request, value, true),
  },
  translation: {
    call: ({ client, request, target, options }) =>
      client.translation(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: parametersOf(request) as TranslationArgs['parameters'],
        },
        options,
      ),
    read: (request, value) => textField(request, value, 'translation_text'),
  },
  summarization: {
    call: ({ client, request, target, options }) =>
      client.summarization(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: (request, value) => textField(request, value, 'summary_text'),
  },
  'fill-mask': {
    call: ({ client, request, target, options }) =>
      client.fillMask(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: bestSequence,
  },
  'question-answering': {
    call: ({ client, request, target, options }) => {
      const question = textInput(request, 'question');
      const context = textInput(request, 'context');
      return client.questionAnswering(
        {
          ...target,
          inputs: { question, context },
          parameters: parametersOf(request) as QuestionAnsweringArgs['parameters'],
        },
        options,
      );
    },
    read: (request, value) => textField(request, value, 'answer'),
  },
  'text-classification': {
    call: ({ client, request, target, options }) =>
      client.textClassification(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: (request, value) => toLabels(request, value, false),
  },
  'text-generation': {
    call: ({ client, request, target, options }) =>
      client.textGeneration(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: parametersOf(request) as TextGenerationInput['parameters'],
        },
        options,
      ),
    read: (request, value) => textField(request, value, 'generated_text'),
  },
  'automatic-speech-recognition': {
    call: ({ client, request, target, options }) =>
      client.automaticSpeechRecognition(
        { ...target, inputs: binaryInput(request, 'audio', 'audio') },
        options,
      ),
    read: (request, value) => textField(request, value, 'text'),
  },
  'text-to-speech': {
    call: ({ client, request, target, options }) =>
      client.textToSpeech(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: (request, value) => toBinary(request, value, DEFAULT_AUDIO_MIME),
  },
  'image-to-3d': {
    call: async ({ request }) => {
      throw new ProviderError(
        `the Hugging Face inference client has no image-to-3d task, so model "${request.model}" ` +
          'cannot run through a Hugging Face provider; use a provider that supports image-to-3d',
        { retryable: false, code: 'unsupported_task' },
      );
    },
    read: (request) => {
      throw badResponse(request, 'image-to-3d is not supported');
    },
  },
  'feature-extraction': {
    call: ({ client, request, target, options }) => {
      poolingOf(request);
      return client.featureExtraction(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: serverParameters(request) as FeatureExtractionArgs['parameters'],
        },
        options,
      );
    },
    read: (request, value) => {
      const tokens = poolingOf(request) === 'none' ? toTokenVectors(value) : undefined;
      if (tokens) return tokens;
      const vector = toVector(value);
      if (!vector) throw badResponse(request, 'expected a vector or one vector per token');
      return vector;
    },
  },
  'image-feature-extraction': {
    call: imageFeatures,
    // Vision transformers answer one vector per patch; they are mean-pooled into one.
    read: (request, value) => {
      const vector = toVector(value);
      if (!vector) throw badResponse(request, 'expected a vector or one vector per patch');
      return vector;
    },
  },
};

let libraryLogsQuieted = false;

/**
 * The client writes routine notes ("Auto selected provider: ...") to the console on every call,
 * which would break into the CLI's live display. Keep its warnings and errors, drop the rest.
 * The client's logger is process-wide, so this is done once.
 */
function quietLibraryLogs(): void {
  if (libraryLogsQuieted) return;
  libraryLogsQuieted = true;
  const drop = () => undefined;
  setLogger({
    debug: drop,
    info: drop,
    log: drop,
    warn: (message, ...args) => console.warn(message, ...args),
    error: (message, ...args) => console.error(message, ...args),
  });
}

/** A model id as a URL path, each segment escaped and the slashes kept. */
function modelPath(model: string): string {
  return model.split('/').map(encodeURIComponent).join('/');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

/** Create a provider; one per provider profile. */
export function createHuggingFaceExpertProvider(
  options: HuggingFaceExpertProviderOptions,
): ExpertProvider {
  const { id } = options;
  const token = options.token || undefined;
  const endpointUrl = options.endpointUrl?.trim() || undefined;
  const inferenceProvider = options.inferenceProvider?.trim() || undefined;
  if (endpointUrl && inferenceProvider) {
    throw new Error(
      `Hugging Face provider "${id}": give either an endpoint URL or an inference provider ` +
        `("${inferenceProvider}"), not both; an endpoint serves its model itself`,
    );
  }
  quietLibraryLogs();
  const baseFetch: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  // The token is handed to the client once; calls never carry it in their arguments.
  const client = new InferenceClient(token ?? '', { retry_on_error: false });

  const where = endpointUrl
    ? `${id} (${displayUrl(endpointUrl)})`
    : `${id} (Hugging Face Inference Providers, provider ${inferenceProvider ?? 'auto'})`;

  /** Remove the token from anything a server or the client put in a message. */
  const redact = (message: string): string =>
    token && token.length >= 4 ? message.split(token).join('[redacted]') : message;

  function targetFor(model: string): Target {
    if (endpointUrl) {
      return { model, endpointUrl: endpointUrl.replaceAll('{model}', modelPath(model)) };
    }
    return { model, provider: (inferenceProvider ?? 'auto') as InferenceProviderOrPolicy };
  }

  function statusError(
    request: ExpertRequest,
    status: number,
    body: unknown,
    rawText: string,
    retryAfterMs: number | undefined,
  ): ProviderError {
    const reason = STATUS_CODES[status] ?? 'Error';
    const said = clip(
      redact(serverMessageOf(body) ?? rawText) || 'no details in the response',
      500,
    );
    const errorType = isRecord(body) && typeof body.error_type === 'string' ? body.error_type : '';
    const base = { status, retryable: isRetryableStatus(status) };
    if (status === 401 || status === 403) {
      const source = options.tokenEnv ? ` (${options.tokenEnv})` : '';
      const hint = token
        ? `check the Hugging Face access token${source} of provider profile "${id}" and its permissions`
        : `no Hugging Face access token was sent; give provider profile "${id}" a token${source}`;
      return new ProviderError(`HTTP ${status} ${reason} from ${where}: ${said} (${hint})`, {
        ...base,
        code: 'unauthorized',
      });
    }
    if (status === 404) {
      return new ProviderError(
        `model "${request.model}" not found at ${where} (HTTP 404): ${said}`,
        { ...base, code: 'model_not_found' },
      );
    }
    const waitMs = retryAfterMs ?? estimatedTimeMs(body);
    const loading =
      status === 503 && (estimatedTimeMs(body) !== undefined || /loading/i.test(said));
    if (loading) {
      const eta = waitMs === undefined ? '' : `, ready in about ${Math.ceil(waitMs / 1000)} s`;
      return new ProviderError(
        `model "${request.model}" is loading at ${where} (HTTP 503${eta}): ${said}`,
        { ...base, retryAfterMs: waitMs, code: 'model_loading' },
      );
    }
    return new ProviderError(`HTTP ${status} ${reason} from ${where}: ${said}`, {
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
  function guardedFetch(
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
          endpointUrl && isLocalUrl(endpointUrl) ? ' (is the local server running?)' : '';
        throw new ProviderError(redact(`cannot reach ${where}: ${detail || error}${hint}`), {
          retryable: true,
          code: 'connection_error',
          cause: error,
        });
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
        request,
        response.status,
        parseJson(text),
        text,
        parseRetryAfterMs(response.headers),
      );
    };
  }

  function mapError(
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
    if (
      error instanceof InferenceClientProviderApiError ||
      error instanceof InferenceClientHubApiError
    ) {
      const { status, body } = error.httpResponse;
      const text = typeof body === 'string' ? body : '';
      return statusError(request, status, body, text || error.message, undefined);
    }
    if (
      error instanceof InferenceClientInputError ||
      error instanceof InferenceClientRoutingError
    ) {
      return invalidRequest(redact(`${request.task} on ${where}: ${error.message}`));
    }
    if (error instanceof InferenceClientProviderOutputError) {
      return badResponse(request, redact(error.message));
    }
    const message = error instanceof Error ? error.message : String(error);
    // A body that is not the JSON the content type promised, or fetch failing oddly mid-body, is
    // treated like a network error: transient more often than not.
    return new ProviderError(redact(`${request.task} request to ${where} failed: ${message}`), {
      retryable: true,
      code: 'network_error',
      cause: error,
    });
  }

  return {
    id,
    async run(request: ExpertRequest, callOptions: CallOptions): Promise<ExpertResult> {
      const { signal } = callOptions;
      if (signal.aborted) throw abortError(signal.reason);
      const spec = TASKS[request.task];
      if (!spec) throw invalidRequest(`unknown expert task "${String(request.task)}"`);
      const seen: { json?: unknown } = {};
      const answers = guardAnswers(baseFetch, {
        where,
        maxBytes: callOptions.maxAnswerBytes ?? DEFAULT_LIMITS.answerBytes,
        expect: 'any',
      });
      const context: TaskContext = {
        client,
        request,
        target: targetFor(request.model),
        options: {
          signal,
          fetch: guardedFetch(request, signal, seen, answers),
          retry_on_error: false,
        },
        ...(token ? { token } : {}),
      };
      try {
        let value: unknown;
        try {
          value = await spec.call(context);
        } catch (error) {
          // The client checks an answer against the one shape it expects, which can be narrower
          // than what servers send: hf-inference captioners answer [{generated_text}] where the
          // client wants a bare object. Our own reading accepts both, so it gets a second look.
          if (!(error instanceof InferenceClientProviderOutputError) || seen.json === undefined) {
            throw error;
          }
          value = seen.json;
        }
        const output = await spec.read(request, value);
        if (signal.aborted) throw abortError(signal.reason);
        return { output, model: request.model, source: 'live' };
      } catch (error) {
        throw mapError(request, error, signal, answers);
      }
    },
  };
}
