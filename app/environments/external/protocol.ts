/**
 * The simulator protocol, version 1: how a society drives a world that runs outside it (a
 * Habitat-style house, a Minecraft-style server, a corridor in a test) with two requests, reset
 * and step, in JSON. docs/simulator-protocol.md is the reader's version of this file.
 *
 * Every answer is parsed here before anything reads it: a simulator is another program, maybe
 * someone else's, and an answer that is not what the protocol says fails with one line naming
 * the field (`observation: expected text`), never with a value a node misreads later.
 */
import { z } from 'zod';

/** The protocol version a client speaks; sent with every request as `protocol`. */
export const PROTOCOL_VERSION = 1;

/** At most this many actions in one answer (a list, not a world dump). */
const MAX_ACTIONS = 1000;

/** What a client sends to start an episode. */
export interface ResetRequest {
  protocol: typeof PROTOCOL_VERSION;
  /** The simulator draws every random choice of the episode from it. */
  seed: string | number;
  /** Simulator-specific settings, passed as the document gives them. */
  options?: Record<string, unknown>;
}

/** What a client sends to play one action. */
export interface StepRequest {
  protocol: typeof PROTOCOL_VERSION;
  session: string;
  action: string;
  /**
   * This step's number in the episode, from 1. A simulator may ignore it, or use it to answer a
   * step sent twice (a run resumed after a crash repeats the step it was waiting on) without
   * playing it twice.
   */
  step: number;
  /** Which agent acts, for a world with several. */
  agent?: string;
}

const protocolField = z.literal(PROTOCOL_VERSION).optional();
const observation = z.string();
const actions = z.array(z.string()).max(MAX_ACTIONS).optional();
const state = z.record(z.string(), z.unknown()).optional();

/** A simulator's answer to reset. Fields the protocol does not name are ignored. */
export const resetAnswer = z.object({
  protocol: protocolField,
  session: z.string().min(1).max(200),
  observation,
  actions,
  state,
  done: z.boolean(),
});
export type ResetAnswer = z.infer<typeof resetAnswer>;

/** A simulator's answer to step. */
export const stepAnswer = z.object({
  protocol: protocolField,
  observation,
  actions,
  reward: z.number().finite().optional(),
  done: z.boolean(),
  state,
  info: z.record(z.string(), z.unknown()).optional(),
});
export type StepAnswer = z.infer<typeof stepAnswer>;

/** How a simulator refuses a request (an unknown session, an action it cannot parse). */
export const errorAnswer = z.object({ error: z.string().min(1) });

/** The two requests, by name. */
export type RequestType = 'reset' | 'step';

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
};

/**
 * The first thing wrong with an answer, as `path: what was expected`, in words a person who
 * writes simulators reads at once (`actions[2]: expected text`, `done: missing (true or false)`).
 */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not an answer this protocol knows';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  const at = path ? `${path}: ` : '';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return /received undefined/.test(issue.message)
        ? `${at}missing (expected ${expected})`
        : `${at}expected ${expected}`;
    }
    case 'invalid_value':
      return `${at}expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'too_small':
      return `${at}must not be empty`;
    case 'too_big':
      return `${at}too long (at most ${String(issue.maximum)})`;
    default:
      return `${at}${issue.message}`;
  }
}
