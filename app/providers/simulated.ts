/**
 * The simulated provider: made-up but deterministic answers, so a society can be demoed,
 * tested and step-debugged with no server and no key. Every text starts with "[simulated] "
 * and every result says `simulated: true`, so it can never pass for a real model's words.
 */
import { createHash } from 'node:crypto';
import { SIMULATED_PREFIX } from '../schema/simulated.ts';
import { canonicalJson } from './canonical.ts';
import { normalizeRequest } from './cassette-file.ts';
import { abortableSleep } from './retry.ts';
import {
  chunkWords,
  estimatePromptTokens,
  estimateTokens,
  lastUserText,
  messageText,
} from './text.ts';
import type { CallOptions, ChatProvider, ChatRequest, ChatResult } from './types.ts';
import { abortError } from './types.ts';

const OPENERS = ['I think', 'On balance,', 'My view is that', 'Frankly,', 'It seems'];
const SUBJECTS = [
  'the simplest option',
  'a careful middle path',
  'the bolder plan',
  'gathering more evidence',
  'the second idea',
];
const PREDICATES = [
  'deserves a closer look',
  'is worth the risk',
  'should come first',
  'needs a small trial',
  'beats the alternatives',
];
const QUESTIONS = [
  'What would change if we looked again at "{f}"?',
  'Why does "{f}" matter most here?',
  'What evidence would support "{f}"?',
  'Who would disagree with "{f}", and why?',
  'How could we test "{f}"?',
];
const SUMMARY_ENDINGS = [
  'settles on a cautious middle ground',
  'leaves one question open',
  'agrees on the main point',
  'weighs two competing views',
];

/** Deterministic choices drawn from the hash of the request. */
class Seed {
  readonly #hex: string;
  #next = 0;
  constructor(hex: string) {
    this.#hex = hex;
  }
  /** An integer in [0, n). Consumes 4 hex digits (wrapping around the 64-digit hash). */
  int(n: number): number {
    const start = (this.#next * 4) % this.#hex.length;
    this.#next++;
    return Number.parseInt(this.#hex.slice(start, start + 4), 16) % Math.max(1, n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** A run of `count` consecutive words of `text`, without edge punctuation. */
function quote(text: string, count: number, seed: Seed): string {
  const words = text
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean);
  if (words.length === 0) return 'the topic';
  const size = Math.min(count, words.length);
  const start = seed.int(words.length - size + 1);
  return words.slice(start, start + size).join(' ');
}

/** Option letters offered as "(a)", "(b)", …, distinct and in order of appearance. */
function optionLetters(text: string): string[] {
  const letters = [...text.matchAll(/\(([a-z])\)/gi)].map((m) => m[1]!.toLowerCase());
  return [...new Set(letters)];
}

/**
 * The simulated answer to a request (prefix included). Pure: the same request always gives
 * the same text, because every choice is drawn from the sha256 of the normalized request.
 */
export function simulateText(request: ChatRequest): string {
  const seed = new Seed(
    createHash('sha256')
      .update(canonicalJson(normalizeRequest(request)))
      .digest('hex'),
  );
  const user = lastUserText(request);
  // Role instructions often live in the system prompt, so both are read for intent.
  const system = request.messages
    .filter((m) => m.role === 'system')
    .map(messageText)
    .join('\n');
  const instructions = `${system}\n${user}`;
  const subject = user || instructions;

  // The request itself usually comes last, so intent is read from the tail of the user message.
  const tail = user.slice(-240);
  const letters =
    optionLetters(user).length >= 2 ? optionLetters(user) : optionLetters(instructions);
  const asksForLetter = /\bletters?\b|answer with|\(a\)[,.]? *(?:or|\(b\)|without)/i.test(tail);
  if (letters.length >= 2 && asksForLetter) return `${SIMULATED_PREFIX}(${seed.pick(letters)})`;

  if (/question/i.test(tail) && tail.includes('?')) {
    return SIMULATED_PREFIX + seed.pick(QUESTIONS).replace('{f}', quote(subject, 4, seed));
  }
  if (/summar/i.test(instructions)) {
    const words = quote(subject, 5, seed);
    return `${SIMULATED_PREFIX}Summary: the discussion centres on "${words}" and ${seed.pick(SUMMARY_ENDINGS)}.`;
  }
  if (letters.length >= 2) return `${SIMULATED_PREFIX}(${seed.pick(letters)})`;
  if (/question/i.test(instructions) && instructions.includes('?') && !user.trim().endsWith('?')) {
    return SIMULATED_PREFIX + seed.pick(QUESTIONS).replace('{f}', quote(subject, 4, seed));
  }
  const sentence = `${seed.pick(OPENERS)} ${seed.pick(SUBJECTS)} ${seed.pick(PREDICATES)}`;
  return `${SIMULATED_PREFIX}${sentence}, given "${quote(subject, 5, seed)}".`;
}

export interface SimulatedProviderOptions {
  /** Provider id; defaults to 'simulated'. */
  id?: string;
  /** Pretend thinking time before answering; abortable. */
  latencyMs?: number;
}

/** A ChatProvider that answers deterministically without any server. */
export class SimulatedProvider implements ChatProvider {
  readonly id: string;
  readonly #latencyMs: number;

  constructor(options: SimulatedProviderOptions = {}) {
    this.id = options.id ?? 'simulated';
    this.#latencyMs = options.latencyMs ?? 0;
  }

  async chat(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    const { signal } = options;
    if (signal.aborted) throw abortError(signal.reason);
    if (this.#latencyMs > 0) await abortableSleep(this.#latencyMs, signal);
    const text = simulateText(request);
    if (request.stream && options.onDelta) {
      for (const fragment of chunkWords(text)) options.onDelta(fragment);
    }
    return {
      text,
      usage: {
        promptTokens: estimatePromptTokens(request),
        completionTokens: estimateTokens(text),
      },
      model: request.model,
      finishReason: 'stop',
      simulated: true,
      source: 'simulated',
    };
  }
}
