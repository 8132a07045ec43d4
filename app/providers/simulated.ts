/**
 * The simulated provider: made-up but deterministic answers, so a society can be demoed,
 * tested and step-debugged with no server and no key. Every text starts with "[simulated] "
 * and every result says `simulated: true`, so it can never pass for a real model's words.
 * Answers take the shape the calling node asks for (`CallOptions.answerShape`: JSON, one of
 * the offered options, a ballot, a game's commands), so a simulated society runs through.
 */
import { createHash } from 'node:crypto';
import { SIMULATED_PREFIX } from '../schema/simulated.ts';
import { canonicalJson } from './canonical.ts';
import { normalizeRequest } from './cassette-file.ts';
import { abortableSleep } from './retry.ts';
import { valueForSchema } from './simulated-json.ts';
import {
  castBallot,
  chooseOption,
  contentWords,
  jsonExample,
  likeExample,
  offeredOptions,
} from './simulated-shapes.ts';
import {
  chunkWords,
  estimatePromptTokens,
  estimateTokens,
  lastUserText,
  messageText,
} from './text.ts';
import type { ToolCall } from './tools.ts';
import type { AnswerShape, CallOptions, ChatProvider, ChatRequest, ChatResult } from './types.ts';
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

/** ` Asked: …?`: the question in `text` a vision answer answers (none when nothing is asked). */
function askedAbout(text: string): string {
  const question = text
    .replaceAll(SIMULATED_PREFIX, '')
    .match(/[^.!?\n]*\?/)?.[0]
    ?.trim();
  if (!question) return '';
  const words = question.split(/\s+/);
  return ` Asked: ${words.length > 12 ? `${words.slice(0, 12).join(' ')} …?` : question}`;
}

/** The seed of a request: the sha256 of its normalized form (what a cassette keys it by). */
function requestSeed(request: ChatRequest): Seed {
  return new Seed(
    createHash('sha256')
      .update(canonicalJson(normalizeRequest(request)))
      .digest('hex'),
  );
}

/** Every message's text, oldest first: the context a choice is weighed against. */
function promptText(request: ChatRequest): string {
  return request.messages.map(messageText).join('\n');
}

/**
 * The simulated answer to a request (prefix included). Pure: the same request (and shape)
 * always gives the same text, because every choice is drawn from the sha256 of the normalized
 * request. With a `shape` the answer takes it (see `AnswerShape`); without one it is read from
 * the prompt: an option letter when options are offered, `seen` (what was measured of the
 * request's picture) for a vision request, a question, a summary, or a sentence.
 */
export function simulateText(request: ChatRequest, shape?: AnswerShape, seen?: string): string {
  const seed = requestSeed(request);
  if (shape) return SIMULATED_PREFIX + shapedAnswer(request, shape, seed);
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
  const offered = offeredOptions(user).options.length >= 2 ? user : instructions;
  const hasOptions = offeredOptions(offered).options.length >= 2;
  const asksForLetter = /\bletters?\b|answer with|\(a\)[,.]? *(?:or|\(b\)|without)/i.test(tail);
  const option = () => SIMULATED_PREFIX + choiceAnswer(request, offered, seed);
  if (hasOptions && asksForLetter) return option();
  // A vision request: what was measured of the picture, rather than made-up words about it,
  // and which question it answers, so a new question visibly gets its own answer.
  if (seen) return SIMULATED_PREFIX + seen + askedAbout(user);

  if (/question/i.test(tail) && tail.includes('?')) {
    return SIMULATED_PREFIX + seed.pick(QUESTIONS).replace('{f}', quote(subject, 4, seed));
  }
  if (/summar/i.test(instructions)) {
    const words = salientQuote(subject, 5, seed);
    return `${SIMULATED_PREFIX}Summary: the discussion centres on "${words}" and ${seed.pick(SUMMARY_ENDINGS)}.`;
  }
  if (hasOptions) return option();
  if (/question/i.test(instructions) && instructions.includes('?') && !user.trim().endsWith('?')) {
    return SIMULATED_PREFIX + seed.pick(QUESTIONS).replace('{f}', quote(subject, 4, seed));
  }
  return SIMULATED_PREFIX + sentence(subject, seed);
}

/**
 * The run of up to `count` words of `text`, within one sentence, that says most of what the
 * text repeats (the sum of how often its content words occur), so a summary quotes what was
 * talked about; ties by seed.
 */
function salientQuote(text: string, count: number, seed: Seed): string {
  const counts = new Map<string, number>();
  for (const w of contentWords(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
  let best = { words: [] as string[], score: -1, tie: 0 };
  for (const sentence of text.split(/[\n.;:!?]+/)) {
    const words = sentence
      .split(/\s+/)
      .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
      .filter(Boolean);
    const size = Math.min(count, words.length);
    for (let start = 0; size > 0 && start + size <= words.length; start++) {
      const window = words.slice(start, start + size);
      const said = new Set(contentWords(window.join(' ')));
      const score = [...said].reduce((sum, w) => sum + (counts.get(w) ?? 0), 0);
      const tie = seed.int(1 << 16);
      if (score > best.score || (score === best.score && tie > best.tie)) {
        best = { words: window, score, tie };
      }
    }
  }
  return best.words.length > 0 ? best.words.join(' ') : 'the topic';
}

/** A short made-up sentence with a fragment of `subject`. */
function sentence(subject: string, seed: Seed): string {
  const said = `${seed.pick(OPENERS)} ${seed.pick(SUBJECTS)} ${seed.pick(PREDICATES)}`;
  return `${said}, given "${quote(subject, 5, seed)}".`;
}

/**
 * The option letter the prompt's context points at: options read from `offered` (the text
 * that lists them), weighed against everything else the model was given.
 */
function choiceAnswer(request: ChatRequest, offered: string, seed: Seed): string {
  const { options } = offeredOptions(offered);
  const context = offeredOptions(promptText(request)).rest;
  return chooseOption(options, context, (n) => seed.int(n));
}

/** An answer in the shape a node asked for (without the prefix). */
function shapedAnswer(request: ChatRequest, shape: AnswerShape, seed: Seed): string {
  const draw = (n: number) => seed.int(n);
  const prompt = promptText(request);
  switch (shape.kind) {
    case 'choice': {
      const given = shape.options?.map((text, i) => ({
        letter: String.fromCharCode(97 + i),
        text,
      }));
      const read = offeredOptions(prompt);
      const options = given && given.length > 0 ? given : read.options;
      if (options.length === 0) return sentence(lastUserText(request) || prompt, seed);
      return chooseOption(options, read.rest, draw);
    }
    case 'ballot':
      if (shape.candidates.length === 0) return sentence(lastUserText(request) || prompt, seed);
      return castBallot(shape.candidates, shape.form, prompt, draw);
    case 'json': {
      const subject = lastUserText(request) || prompt;
      const say = () => `${SIMULATED_PREFIX}${sentence(subject, seed)}`;
      const example = shape.schema ? undefined : jsonExample(prompt);
      const value = shape.schema
        ? valueForSchema(shape.schema, { say, draw })
        : example !== undefined
          ? likeExample(example, say)
          : { answer: say() };
      return JSON.stringify(value);
    }
    case 'custom': {
      const text = shape.answer(request, draw);
      return text.startsWith(SIMULATED_PREFIX) ? text.slice(SIMULATED_PREFIX.length) : text;
    }
    default:
      return shape satisfies never;
  }
}

/** The messages after the last user message: this turn's tool calls and their results. */
function sinceLastUser(request: ChatRequest): ChatRequest['messages'] {
  const last = request.messages.findLastIndex((m) => m.role === 'user');
  return request.messages.slice(last + 1);
}

/**
 * The simulated model's tool call, when it is offered tools and has not called one this turn:
 * one call, to the tool the prompt names (else the first), with arguments made up from the
 * tool's JSON Schema, so they pass its check. Undefined once the turn has tool results.
 */
export function simulateToolCalls(request: ChatRequest): ToolCall[] | undefined {
  const tools = request.tools ?? [];
  if (tools.length === 0) return undefined;
  if (sinceLastUser(request).some((m) => m.role === 'tool')) return undefined;
  const seed = requestSeed(request);
  const prompt = lastUserText(request);
  const named = tools.find((t) => new RegExp(`\\b${escapeRegExp(t.name)}\\b`, 'i').test(prompt));
  const tool = named ?? tools[0]!;
  const say = () => `${SIMULATED_PREFIX}${quote(prompt, 3, seed)}`;
  const args = valueForSchema(tool.parameters, { say, draw: (n) => seed.int(n) });
  const id = `call_sim_${seed.int(1 << 16).toString(16)}`;
  return [{ id, name: tool.name, arguments: JSON.stringify(args ?? {}) }];
}

/**
 * The simulated answer once tools have answered this turn: it says what they gave back, so a
 * run shows the results reaching the answer (or takes the shape the node asked for).
 */
function toolAnswer(request: ChatRequest, shape: AnswerShape | undefined): string | undefined {
  const results = sinceLastUser(request).filter((m) => m.role === 'tool');
  if (results.length === 0 || shape) return undefined;
  const calls = new Map(
    sinceLastUser(request)
      .flatMap((m) => m.toolCalls ?? [])
      .map((c) => [c.id, c.name]),
  );
  const said = results.map((m) => {
    const text = messageText(m).replaceAll(SIMULATED_PREFIX, '').replace(/\s+/g, ' ').trim();
    const clipped = text.length > 200 ? `${text.slice(0, 199)}…` : text;
    return `${calls.get(m.toolCallId ?? '') ?? 'the tool'} gave ${clipped}`;
  });
  return `${SIMULATED_PREFIX}According to the tools: ${said.join('; ')}.`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface SimulatedProviderOptions {
  /** Provider id; defaults to 'simulated'. */
  id?: string;
  /** Pretend thinking time before answering; abortable. */
  latencyMs?: number;
  /**
   * What it can honestly say of the picture a request shows (facts measured from its pixels,
   * app/imageops/simulated-vision.ts `imageFacts`), handed in so providers hold no image code.
   * Without it, a picture adds nothing to the answer.
   */
  see?: (request: ChatRequest, maxPixels?: number) => Promise<string | undefined>;
}

/** A ChatProvider that answers deterministically without any server. */
export class SimulatedProvider implements ChatProvider {
  readonly id: string;
  readonly #latencyMs: number;
  readonly #see: SimulatedProviderOptions['see'];

  constructor(options: SimulatedProviderOptions = {}) {
    this.id = options.id ?? 'simulated';
    this.#latencyMs = options.latencyMs ?? 0;
    this.#see = options.see;
  }

  async chat(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    const { signal } = options;
    if (signal.aborted) throw abortError(signal.reason);
    if (this.#latencyMs > 0) await abortableSleep(this.#latencyMs, signal);
    const toolCalls = simulateToolCalls(request);
    if (toolCalls) {
      return {
        text: '',
        usage: {
          promptTokens: estimatePromptTokens(request),
          completionTokens: estimateTokens(JSON.stringify(toolCalls)),
        },
        model: request.model,
        finishReason: 'tool_calls',
        simulated: true,
        source: 'simulated',
        toolCalls,
      };
    }
    const seen = options.answerShape
      ? undefined
      : await this.#see?.(request, options.maxImagePixels);
    const text =
      toolAnswer(request, options.answerShape) ?? simulateText(request, options.answerShape, seen);
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
