/**
 * Reading commands: `verb_agentN[_item][_location]`, checked in two stages before any rule
 * runs: its syntax (shape and arity) and its vocabulary (a known verb, agent, location, item).
 */
import type { Rejection } from '../types.ts';
import type { WorldConfig } from './config.ts';
import { WASTE } from './data.ts';
import { knownItems } from './levels.ts';

/** The five actions. */
export const VERBS = ['noop', 'goto', 'get', 'put', 'activate'] as const;
export type Verb = (typeof VERBS)[number];

/**
 * Finds commands in free text (a model's answer): every match, in order, is one command.
 * What a command looks like in free text. Any verb-shaped word is read, not only the five
 * actions, so an unknown verb reaches the vocabulary stage and is refused with a reason instead
 * of vanishing silently.
 */
export const COMMAND_PATTERN = /\b[A-Za-z]+_agent\d+(?:_[A-Za-z0-9]+)*/g;

/** One command read from its text. */
export interface ParsedCommand {
  text: string;
  verb: Verb;
  agent: string;
  agentIndex: number;
  location?: string;
  item?: string;
}

const ITEMS = knownItems();

const ARITY: Record<Verb, { min: number; max: number; form: string }> = {
  noop: { min: 0, max: 0, form: 'noop_agentN' },
  goto: { min: 1, max: 1, form: 'goto_agentN_location' },
  activate: { min: 1, max: 1, form: 'activate_agentN_location' },
  put: { min: 1, max: 2, form: 'put_agentN_location' },
  get: { min: 1, max: 2, form: 'get_agentN_location, or get_agentN_item_storage0 at storage' },
};

type Parse = { ok: true; command: ParsedCommand } | { ok: false; rejection: Rejection };

/**
 * Reads one command and checks its words against the world: the syntax stage (the shape
 * `verb_agentN[_arg][_arg]` and the verb's number of arguments) and the vocabulary stage
 * (known verb, an agent that exists, a location in this kitchen, a known item, an item for a
 * storage `get`).
 */
export function parseCommand(raw: string, config: WorldConfig): Parse {
  const text = raw.trim();
  const fail = (
    stage: Rejection['stage'],
    reason: string,
    message: string,
    agent?: string,
  ): Parse => ({
    ok: false,
    rejection: { command: raw, ...(agent ? { agent } : {}), stage, reason, message },
  });
  // `agent01` is not agent1: ids are written without leading zeros, so a seat cannot be dodged.
  const m = /^([A-Za-z]+)_agent(0|[1-9]\d*)((?:_[A-Za-z0-9]+)*)$/.exec(text);
  if (!m) {
    return fail(
      'syntax',
      'bad-syntax',
      `"${raw}" is not a command; write verb_agentN[_item][_location], e.g. goto_agent0_storage0`,
    );
  }
  const verbWord = m[1]!;
  const agentIndex = Number(m[2]);
  const agent = `agent${agentIndex}`;
  const args = m[3] ? m[3].slice(1).split('_') : [];
  const verb = (VERBS as readonly string[]).includes(verbWord) ? (verbWord as Verb) : undefined;
  if (verb) {
    const arity = ARITY[verb];
    if (args.length < arity.min || args.length > arity.max) {
      return fail(
        'syntax',
        'bad-arity',
        `"${raw}" has ${args.length} argument${args.length === 1 ? '' : 's'} after the agent; ${verb} is written ${arity.form}`,
        agent,
      );
    }
  } else if (args.length > 2) {
    return fail('syntax', 'bad-syntax', `"${raw}" has too many parts to be a command`, agent);
  }
  if (!verb) {
    return fail(
      'vocabulary',
      'unknown-verb',
      `${verbWord} is not an action; the actions are noop, goto, get, put and activate`,
      agent,
    );
  }
  if (agentIndex >= config.agents) {
    return fail(
      'vocabulary',
      'unknown-agent',
      `there is no ${agent}; the agents are agent0 to agent${config.agents - 1}`,
      agent,
    );
  }
  const command: ParsedCommand = { text, verb, agent, agentIndex };
  if (verb === 'noop') return { ok: true, command };
  const location = args[args.length - 1]!;
  const place = config.locations.find((l) => l.id === location);
  if (!place) {
    return fail(
      'vocabulary',
      'unknown-location',
      `for ${agent}, ${location} is not in this kitchen`,
      agent,
    );
  }
  command.location = location;
  if (args.length === 2) {
    const item = args[0]!;
    if (!ITEMS.has(item) && item !== WASTE) {
      return fail(
        'vocabulary',
        'unknown-item',
        `for ${agent}, ${item} is not an item of this world`,
        agent,
      );
    }
    command.item = item;
  }
  if (verb === 'get' && config.tools[place.tool].role === 'storage' && !command.item) {
    return fail(
      'vocabulary',
      'missing-item',
      `for ${agent}, say which ingredient to get from ${location}: get_${agent}_<ingredient>_${location}`,
      agent,
    );
  }
  return { ok: true, command };
}
