/**
 * An ExpertProvider for Hugging Face: the hosted Inference Providers (reached through the
 * router, with the provider picked per model) or one dedicated endpoint (an Inference Endpoint,
 * or any server that speaks the same HTTP protocol, such as a local one).
 *
 * It drives the official `@huggingface/inference` client, one attempt per call: the client's own
 * retry on 503 is switched off because the engine owns retries. Its parts: huggingface/inputs.ts
 * (a request's inputs, checked before anything is sent), huggingface/tasks.ts (the client call and
 * the reading of each task), huggingface/outputs.ts (answers read into outputs) and
 * huggingface/http.ts (the guarded fetch and the errors).
 */
import type { InferenceClient, InferenceProviderOrPolicy } from '@huggingface/inference';
import { guardAnswers } from '../providers/answer-guard.ts';
import type { ExpertProvider, ExpertRequest, ExpertResult } from '../providers/expert-types.ts';
import type { CallOptions } from '../providers/types.ts';
import { abortError } from '../providers/types.ts';
import { displayUrl } from '../providers/urls.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { guardedFetch, type HfEndpoint, mapError } from './huggingface/http.ts';
import { invalidRequest } from './huggingface/inputs.ts';
import { loadedHfLibrary, loadHfLibrary } from './huggingface/library.ts';
import { TASKS, type Target, type TaskContext } from './huggingface/tasks.ts';

export { toTokenVectors, toVector } from './huggingface/outputs.ts';

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

/** A model id as a URL path, each segment escaped and the slashes kept. */
function modelPath(model: string): string {
  return model.split('/').map(encodeURIComponent).join('/');
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
  const baseFetch: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  // The token is handed to the client once, at the first call (the library loads then); calls
  // never carry it in their arguments.
  let client: InferenceClient | undefined;

  const where = endpointUrl
    ? `${id} (${displayUrl(endpointUrl)})`
    : `${id} (Hugging Face Inference Providers, provider ${inferenceProvider ?? 'auto'})`;

  const endpoint: HfEndpoint = {
    id,
    where,
    ...(token ? { token } : {}),
    ...(options.tokenEnv ? { tokenEnv: options.tokenEnv } : {}),
    ...(endpointUrl ? { endpointUrl } : {}),
  };

  function targetFor(model: string): Target {
    if (endpointUrl) {
      return { model, endpointUrl: endpointUrl.replaceAll('{model}', modelPath(model)) };
    }
    return { model, provider: (inferenceProvider ?? 'auto') as InferenceProviderOrPolicy };
  }

  return {
    id,
    ready: () => (loadedHfLibrary() ? undefined : loadHfLibrary().then(() => undefined)),
    async run(request: ExpertRequest, callOptions: CallOptions): Promise<ExpertResult> {
      const { signal } = callOptions;
      if (signal.aborted) throw abortError(signal.reason);
      const spec = TASKS[request.task];
      if (!spec) throw invalidRequest(`unknown expert task "${String(request.task)}"`);
      const library = await loadHfLibrary();
      client ??= new library.InferenceClient(token ?? '', { retry_on_error: false });
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
          fetch: guardedFetch(endpoint, request, signal, seen, answers),
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
          if (
            !(error instanceof library.InferenceClientProviderOutputError) ||
            seen.json === undefined
          ) {
            throw error;
          }
          value = seen.json;
        }
        const output = await spec.read(request, value);
        if (signal.aborted) throw abortError(signal.reason);
        return { output, model: request.model, source: 'live' };
      } catch (error) {
        throw mapError(endpoint, request, error, signal, answers);
      }
    },
  };
}
