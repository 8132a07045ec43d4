/**
 * The run's one gateway to models: every model and expert call goes through here. It builds
 * the providers (chat and expert alike: simulated, injected, cassette-backed or live from the
 * user's profiles), reserves budget, waits its turn in the provider's queue, retries, records
 * the exact request and answer, and reports each step as an event. Node code only sees
 * `callModel` and `callExpert` on its context.
 */
import { callCost, DEFAULT_MAX_TOKENS, type PriceTable } from '../costs/prices.ts';
import { checkImagePixels } from '../imageops/header.ts';
import { imageFacts } from '../imageops/simulated-vision.ts';
import type { ExpertAnswer, ExpertCall, ModelCall } from '../node-sdk/define.ts';
import { CassetteProvider } from '../providers/cassette.ts';
import {
  type ExpertProvider,
  type ExpertRequest,
  expertTask,
  isBinaryValue,
} from '../providers/expert-types.ts';
import { resolveProviderProfile } from '../providers/profiles.ts';
import { createChatProvider } from '../providers/registry.ts';
import { callWithRetry, type RetryPolicy } from '../providers/retry.ts';
import { SimulatedProvider } from '../providers/simulated.ts';
import { estimatePromptTokens } from '../providers/text.ts';
import {
  type ChatMessage,
  type ChatProvider,
  type ChatResult,
  isAbortError,
  ProviderError,
} from '../providers/types.ts';
import { isBlobValue, isImageValue } from '../schema/blob-refs.ts';
import type { GraphDocument } from '../schema/document.ts';
import type { BlobStore } from './blobs.ts';
import type { Budget } from './budget.ts';
import type { RunEventBody } from './events.ts';
import { ProviderLimits } from './limits.ts';
import type { RunOptions } from './run-options.ts';
import { errorMessage, previewValues } from './values.ts';

/** What the gateway needs of its run. */
export interface CallsSetup {
  options: RunOptions;
  doc: GraphDocument;
  budget: Budget;
  prices: PriceTable;
  retry: RetryPolicy;
  /** The most bytes an answer may have (`settings.limits`). */
  answerBytes: number;
  /** The most pixels an image read or made may have (`settings.limits`). */
  imagePixels: number;
  blobs: BlobStore;
  emit: (body: RunEventBody) => void;
}

export class CallsGateway {
  /** True once any answer in the run was made up by a simulator. */
  simulatedSeen = false;
  readonly #setup: CallsSetup;
  /** The run's options; a replay that goes beyond its cassette changes how calls are answered. */
  #options: RunOptions;
  readonly #limits: ProviderLimits;
  readonly #chat = new Map<string, ChatProvider>();
  readonly #experts = new Map<string, ExpertProvider>();
  readonly #callsByInstance = new Map<string, number>();

  constructor(setup: CallsSetup) {
    this.#setup = setup;
    this.#options = setup.options;
    this.#limits = new ProviderLimits(setup.doc.settings?.concurrency, (provider) =>
      this.#options.simulate ? undefined : this.#profileConcurrency(provider),
    );
  }

  /**
   * From now on a call the replayed cassette lacks is answered by the simulator (`simulate`) or
   * by a live model, not refused: an edit changes every request after it. Calls already in
   * flight keep their provider; recorded answers are still served first.
   */
  beyondCassette(simulate: boolean): void {
    const cassette = this.#options.cassette;
    if (cassette?.mode !== 'replay') throw new Error('the run does not replay a cassette');
    this.#options = {
      ...this.#options,
      simulate,
      cassette: { ...cassette, mode: 'replay-then-live' },
    };
    this.#chat.clear();
    this.#experts.clear();
  }

  // ---- providers -------------------------------------------------------------------------

  get #env() {
    return this.#options.env ?? process.env;
  }

  #profile(providerName: string) {
    return resolveProviderProfile(providerName, {
      env: this.#env,
      overrides: this.#options.providerOverrides,
    });
  }

  /**
   * What a failed call's error is, beyond its text (which is phrased for the command line):
   * the provider's error code, and for a missing key the variable that should hold it, so
   * each front end can give its own advice.
   */
  #errorKind(error: unknown, providerName: string): { code?: string; keyVariable?: string } {
    const code = error instanceof ProviderError ? error.code : undefined;
    if (code === undefined) return {};
    if (code !== 'missing_api_key') return { code };
    let keyVariable: string | undefined;
    try {
      keyVariable = this.#profile(providerName).apiKeyEnv;
    } catch {
      // An unknown provider fails earlier, with its own message.
    }
    return { code, ...(keyVariable ? { keyVariable } : {}) };
  }

  #profileConcurrency(providerName: string): number | undefined {
    try {
      return this.#profile(providerName).concurrency;
    } catch {
      return undefined;
    }
  }

  /**
   * A provider from a cache, made once: `live` answers, wrapped in the run's cassette when it
   * has one (a replay-only cassette needs no live provider at all).
   */
  #cached<P>(
    cache: Map<string, P>,
    key: string,
    live: () => P,
    cassetteOf: (cassette: NonNullable<RunOptions['cassette']>, live?: P) => P,
  ): P {
    let provider = cache.get(key);
    if (provider) return provider;
    const cassette = this.#options.cassette;
    provider = cassette
      ? cassetteOf(cassette, cassette.mode === 'replay' ? undefined : live())
      : live();
    cache.set(key, provider);
    return provider;
  }

  #chatProvider(providerName: string): ChatProvider {
    // With --simulate the simulator stands in for every live provider; a cassette in record
    // mode can then capture simulated answers (they stay labelled as simulated on replay).
    const simulate = this.#options.simulate;
    return this.#cached(
      this.#chat,
      simulate ? 'simulated' : providerName,
      () =>
        simulate
          ? new SimulatedProvider({ id: 'simulated', see: imageFacts })
          : (this.#options.providerFor?.(providerName) ??
            createChatProvider(this.#profile(providerName), this.#env, { see: imageFacts })),
      ({ cassette, mode }, live) =>
        new CassetteProvider({ cassette, mode, ...(live ? { live } : {}) }),
    );
  }

  /** Local operations run even under --simulate (they need no model and cost nothing). */
  #expertName(backend: ExpertCall['backend'], providerName: string): string {
    return backend === 'local' ? 'local' : this.#options.simulate ? 'simulated' : providerName;
  }

  #expertProvider(backend: ExpertCall['backend'], providerName: string): ExpertProvider {
    // A simulated run still shows what local operations do; cassettes record them like any
    // other answer.
    return this.#cached(
      this.#experts,
      this.#expertName(backend, providerName),
      () => {
        if (backend === 'local') return this.#options.experts.local();
        if (this.#options.simulate) return this.#options.experts.simulated();
        return (
          this.#options.expertProviderFor?.(providerName) ??
          this.#options.experts.live(this.#profile(providerName), this.#env)
        );
      },
      ({ cassette, mode }, live) =>
        this.#options.experts.cassette({ cassette, mode, ...(live ? { live } : {}) }),
    );
  }

  /**
   * Ids that depend on who calls, not on timing: a resumed or forked run gives the same call
   * the same id, so its events can be matched with the original log.
   */
  #callId(instance: string): string {
    const nth = (this.#callsByInstance.get(instance) ?? 0) + 1;
    this.#callsByInstance.set(instance, nth);
    return `${instance}:${nth}`;
  }

  // ---- model calls -------------------------------------------------------------------------

  async callModel(
    node: string,
    instance: string,
    call: ModelCall,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const models = this.#setup.doc.models ?? {};
    const profile = Object.hasOwn(models, call.profile) ? models[call.profile] : undefined;
    if (!profile) throw new Error(`model profile "${call.profile}" is not defined in "models"`);
    const stream = call.stream === true || this.#options.streamNodes?.includes(node) === true;
    const request = {
      model: profile.model,
      messages: call.messages,
      ...((call.temperature ?? profile.temperature) !== undefined
        ? { temperature: call.temperature ?? profile.temperature }
        : {}),
      ...((call.maxTokens ?? profile.maxTokens) !== undefined
        ? { maxTokens: call.maxTokens ?? profile.maxTokens }
        : {}),
      ...(stream ? { stream: true } : {}),
      ...(call.responseFormat ? { extra: { response_format: call.responseFormat } } : {}),
      ...(call.tools && call.tools.length > 0 ? { tools: call.tools } : {}),
    };
    const promptEstimate = estimatePromptTokens(request);
    const reservation = this.#setup.budget.reserve(
      promptEstimate + (request.maxTokens ?? 256),
      callCost(
        this.#setup.prices,
        profile.model,
        promptEstimate,
        request.maxTokens ?? DEFAULT_MAX_TOKENS,
      ) ?? 0,
    );
    const callId = this.#callId(instance);
    const provider = this.#chatProvider(profile.provider);
    this.#setup.emit({
      type: 'model.request',
      callId,
      node,
      instance,
      profile: call.profile,
      provider: this.#options.simulate ? 'simulated' : profile.provider,
      model: profile.model,
      messages: call.messages.map((m) => eventMessage(m)),
    });
    const started = performance.now();
    let attempts = 0;
    try {
      // A provider still loading its client library finishes first: no attempt's timeout
      // counts a module load (the first call of a process).
      const loading = provider.ready?.();
      if (loading) await loading;
      // Limits are per provider profile, as the document names them: the simulated provider, a
      // cassette or an injected provider answering a profile keeps that profile's limit.
      const result = await this.#limits.queue(profile.provider).add(
        () =>
          callWithRetry(
            async (attemptSignal) => {
              attempts++;
              const options = {
                signal: attemptSignal,
                maxAnswerBytes: this.#setup.answerBytes,
                maxImagePixels: this.#setup.imagePixels,
                ...(call.answerShape ? { answerShape: call.answerShape } : {}),
              };
              if (!stream) return provider.chat(request, options);
              // Each attempt streams afresh; a key split across deltas is still caught.
              const scrub = this.#options.redactor?.stream();
              const delta = (text: string) => {
                if (text) this.#setup.emit({ type: 'model.delta', callId, text });
              };
              try {
                return await provider.chat(request, {
                  ...options,
                  onDelta: (text: string) => delta(scrub ? scrub.push(text) : text),
                });
              } finally {
                if (scrub) delta(scrub.end());
              }
            },
            this.#setup.retry,
            this.#retryOptions(callId, node, signal),
          ),
        { signal },
      );
      // Only live answers cost money; cassettes and the simulator are free.
      const costUsd =
        result.source === 'live'
          ? callCost(
              this.#setup.prices,
              result.model || profile.model,
              result.usage.promptTokens,
              result.usage.completionTokens,
            )
          : 0;
      reservation.settle(result.usage.promptTokens, result.usage.completionTokens, costUsd ?? 0);
      if (result.simulated) this.simulatedSeen = true;
      // Before the response event: a crash between the two leaves the call in the record, so
      // resuming serves it instead of paying for it again.
      this.#options.onModelCall?.({ callId, node, instance, request, result });
      this.#setup.emit({
        type: 'model.response',
        callId,
        node,
        instance,
        text: result.text,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        ...(costUsd === undefined ? {} : { costUsd }),
        source: result.source,
        simulated: result.simulated === true,
        durationMs: Math.round(performance.now() - started),
        attempts,
        ...(result.toolCalls?.length ? { toolCalls: result.toolCalls } : {}),
      });
      return result;
    } catch (error) {
      reservation.release();
      if (!isAbortError(error) && !signal.aborted) {
        this.#setup.emit({
          type: 'model.error',
          callId,
          node,
          error: errorMessage(error),
          ...this.#errorKind(error, profile.provider),
        });
      }
      throw error;
    }
  }

  // ---- expert calls ------------------------------------------------------------------------

  async callExpert(
    node: string,
    instance: string,
    call: ExpertCall,
    signal: AbortSignal,
  ): Promise<ExpertAnswer> {
    const inputs: ExpertRequest['inputs'] = {};
    for (const [name, value] of Object.entries(call.inputs)) {
      if (value === undefined || value === null) continue;
      if (isImageValue(value) || isBlobValue(value)) {
        const hash = isImageValue(value) ? value.$image : value.$blob;
        const blob = this.#setup.blobs.get(hash);
        if (!blob) throw new Error(`input ${name}: blob ${hash.slice(0, 12)}… is not in this run`);
        inputs[name] = { bytes: blob.bytes, mime: blob.mime };
      } else inputs[name] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    const request: ExpertRequest = {
      task: expertTask(call.task),
      model: call.model,
      inputs,
      ...(call.parameters && Object.keys(call.parameters).length > 0
        ? { parameters: call.parameters }
        : {}),
    };
    const provider = this.#expertProvider(call.backend, call.provider);
    const reservation = this.#setup.budget.reserveExpert();
    const callId = this.#callId(instance);
    const providerName = this.#expertName(call.backend, call.provider);
    this.#setup.emit({
      type: 'expert.request',
      callId,
      node,
      instance,
      provider: providerName,
      task: call.task,
      model: call.model,
      inputs: previewValues(call.inputs),
    });
    const started = performance.now();
    let attempts = 0;
    try {
      const loading = provider.ready?.();
      if (loading) await loading;
      const result = await this.#limits.queue(providerName).add(
        () =>
          callWithRetry(
            async (attemptSignal) => {
              attempts++;
              const result = await provider.run(request, {
                signal: attemptSignal,
                maxAnswerBytes: this.#setup.answerBytes,
                maxImagePixels: this.#setup.imagePixels,
              });
              checkOutputImage(result.output, this.#setup.imagePixels);
              return result;
            },
            this.#setup.retry,
            this.#retryOptions(callId, node, signal),
          ),
        { signal },
      );
      if (result.simulated) this.simulatedSeen = true;
      reservation.settle();
      // Recorded before the response event, as model calls are: a resume serves it again.
      this.#options.onExpertCall?.({ callId, node, instance, request, result });
      const output = isBinaryValue(result.output)
        ? this.#setup.blobs.put(result.output.bytes, result.output.mime)
        : result.output;
      this.#setup.emit({
        type: 'expert.response',
        callId,
        node,
        instance,
        output: previewValues({ output }).output,
        source: result.source,
        simulated: result.simulated === true,
        durationMs: Math.round(performance.now() - started),
        attempts,
      });
      return { output, simulated: result.simulated === true };
    } catch (error) {
      reservation.release();
      if (!isAbortError(error) && !signal.aborted) {
        this.#setup.emit({
          type: 'expert.error',
          callId,
          node,
          error: errorMessage(error),
          ...this.#errorKind(error, providerName),
        });
      }
      throw error;
    }
  }

  /** How a call is retried: under the run's signal, each retry reported as an event. */
  #retryOptions(callId: string, node: string, signal: AbortSignal) {
    return {
      signal,
      ...(this.#options.random ? { random: this.#options.random } : {}),
      onRetry: ({
        attempt,
        delayMs,
        error,
      }: {
        attempt: number;
        delayMs: number;
        error: unknown;
      }) =>
        this.#setup.emit({
          type: 'model.retry',
          callId,
          node,
          attempt,
          delayMs: Math.round(delayMs),
          error: errorMessage(error),
        }),
    };
  }
}

/** Events reference images by hash instead of carrying their bytes. */
function eventMessage(message: ChatMessage): ChatMessage {
  if (typeof message.content === 'string') return message;
  return {
    ...message,
    role: message.role,
    content: message.content.map((part) =>
      part.type === 'image'
        ? {
            type: 'image',
            url: `blob:${part.sha256 ?? 'inline'}`,
            ...(part.mime ? { mime: part.mime } : {}),
          }
        : part,
    ),
  };
}

/**
 * Refuses an image an expert sent back that is larger than the run's pixel budget, from its
 * header: the next node may decode it. Not worth another attempt, as the same call would send the
 * same picture; the node fails naming the size and the budget.
 */
function checkOutputImage(output: unknown, maxPixels: number): void {
  if (!isBinaryValue(output) || !output.mime.startsWith('image/')) return;
  try {
    checkImagePixels(output.bytes, maxPixels, 'the image it sent back');
  } catch (error) {
    throw new ProviderError((error as Error).message, { retryable: false });
  }
}
