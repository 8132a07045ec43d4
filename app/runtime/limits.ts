/**
 * How many calls a run has in flight per provider: one queue per provider profile, as the
 * document names it, so the simulated provider, a cassette or an injected provider answering a
 * profile keeps that profile's limit.
 */
import PQueue from 'p-queue';
import type { RunSettings } from '../schema/document.ts';

export class ProviderLimits {
  readonly #queues = new Map<string, PQueue>();
  readonly #settings: RunSettings['concurrency'];
  /** What the user's provider profile says its server can take, when it says. */
  readonly #profileLimit: (provider: string) => number | undefined;

  constructor(
    settings: RunSettings['concurrency'],
    profileLimit: (provider: string) => number | undefined,
  ) {
    this.#settings = settings;
    this.#profileLimit = profileLimit;
  }

  /** The queue a call to this provider waits in. */
  queue(provider: string): PQueue {
    let queue = this.#queues.get(provider);
    if (!queue) {
      // The document's per-provider limit wins; then what the user's provider profile says its
      // server can take (a local Ollama far less than OpenAI); then the document's default.
      const limit =
        this.#settings?.providers?.[provider] ??
        this.#profileLimit(provider) ??
        this.#settings?.default ??
        4;
      queue = new PQueue({ concurrency: limit });
      this.#queues.set(provider, queue);
    }
    return queue;
  }
}
