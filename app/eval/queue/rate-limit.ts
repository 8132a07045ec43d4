/**
 * Per-provider rate limits that hold across every worker of a queue: `--rate openai=60/min`.
 * The limit belongs to the provider account, not to one process, so its state lives in Redis:
 * one key per provider holding the time the next call may start. Each call reserves the next
 * free slot with one atomic script and waits for it, so calls are spaced evenly (60/min is one
 * call a second, from whichever worker) and waiting callers go in the order they asked.
 * Only live calls are counted: answers from a cassette or a run's own record cost nothing.
 */
import type { Redis } from 'ioredis';
import { imageFacts } from '../../imageops/simulated-vision.ts';
import { type ProfileOverride, resolveProviderProfile } from '../../providers/profiles.ts';
import { createChatProvider } from '../../providers/registry.ts';
import { abortError, type ChatProvider } from '../../providers/types.ts';
import { QUEUE_PREFIX } from './connection.ts';

/** A limit: at most `max` calls every `perMs` milliseconds. */
export interface RateLimit {
  max: number;
  perMs: number;
}

const UNITS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
};

/** Reads `PROVIDER=N/UNIT` (unit s, min or h); the message says what is wrong. */
export function parseRate(text: string): [provider: string, limit: RateLimit] {
  const match = /^([\w.-]+)=(\d+(?:\.\d+)?)\/(\w+)$/.exec(text.trim());
  const perMs = match ? UNITS[match[3]!.toLowerCase()] : undefined;
  const max = match ? Number(match[2]) : Number.NaN;
  if (!match || perMs === undefined || !(max > 0))
    throw new Error(
      `--rate ${text}: give PROVIDER=N/UNIT, e.g. openai=60/min (units: s, min, h; N above 0)`,
    );
  return [match[1]!, { max, perMs }];
}

/** Reads every `--rate`; a provider named twice keeps the stricter limit. */
export function parseRates(texts: readonly string[]): Record<string, RateLimit> {
  const rates: Record<string, RateLimit> = {};
  for (const text of texts) {
    const [provider, limit] = parseRate(text);
    rates[provider] = stricter(rates[provider], limit);
  }
  return rates;
}

/** The stricter of two limits (the one with the longer spacing between calls). */
export function stricter(a: RateLimit | undefined, b: RateLimit): RateLimit {
  return a && spacing(a) >= spacing(b) ? a : b;
}

/** Milliseconds between two calls under `limit`. */
export function spacing(limit: RateLimit): number {
  return limit.perMs / limit.max;
}

/** `60/min`, for messages. */
export function formatRate(limit: RateLimit): string {
  const unit = Object.entries(UNITS).find(([name, ms]) => ms === limit.perMs && name.length > 1);
  return `${limit.max}/${unit?.[0] ?? `${limit.perMs}ms`}`;
}

/**
 * Reserves the next free slot: the stored time (or now, if later) is the slot; the next one is
 * a spacing after it. Returns how long to wait. Redis's own clock, so workers' clocks may differ.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local spacing = tonumber(ARGV[1])
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
if slot < now then slot = now end
redis.call('SET', KEYS[1], tostring(slot + spacing), 'PX', math.ceil(slot + spacing - now) + 1000)
return slot - now
`;

/** Waits for a provider's turn, across every process sharing the Redis server. */
export class RedisRateLimiter {
  readonly #redis: Redis & {
    societyReserve?: (key: string, spacing: number) => Promise<number>;
  };

  constructor(redis: Redis) {
    this.#redis = redis;
    redis.defineCommand('societyReserve', { numberOfKeys: 1, lua: RESERVE });
  }

  /** Resolves when a call to `provider` may start under `limit`. */
  async acquire(provider: string, limit: RateLimit, signal?: AbortSignal): Promise<void> {
    const key = `${QUEUE_PREFIX}:rate:${provider}`;
    const waitMs = Number(await this.#redis.societyReserve!(key, Math.ceil(spacing(limit))));
    if (waitMs > 0) await sleep(waitMs, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal.reason));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal?.reason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The engine's `providerFor`: each provider made as the engine would make it, with the ones
 * that have a limit waiting for their turn before every call.
 */
export function rateLimitedProviders(
  rates: Readonly<Record<string, RateLimit>>,
  limiter: RedisRateLimiter,
  overrides: Readonly<Record<string, ProfileOverride>>,
): (providerName: string) => ChatProvider {
  return (providerName) => {
    const inner = createChatProvider(
      resolveProviderProfile(providerName, { overrides }),
      process.env,
      {
        see: imageFacts,
      },
    );
    const limit = rates[providerName];
    if (!limit) return inner;
    return {
      id: inner.id,
      async chat(request, options) {
        await limiter.acquire(providerName, limit, options.signal);
        return inner.chat(request, options);
      },
    };
  };
}
