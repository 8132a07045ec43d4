/**
 * The environments a society can act in, by kind: the one list of them (`ENVIRONMENTS`, each
 * folder's name and settings schema, all a node's editor needs), and, for the kinds a
 * dispatcher can brief (CuisineWorld), what it needs beyond the contract: worlds, briefings,
 * commands read out of text, a policy that needs no model. The episodes themselves, which may
 * reach a simulator outside the product, are in ./episodes.ts, which the editor never loads.
 */
import { z } from 'zod';
import { cuisineWorldSettings } from './cuisineworld/episode-settings.ts';
import { cuisineWorldKind } from './cuisineworld/kind.ts';
import type { Briefing, DemoStep } from './dispatch.ts';
import { externalSettings } from './external/episode-settings.ts';
import { textWorldSettings } from './textworld/episode-settings.ts';
import type { Environment, EnvironmentSettings } from './types.ts';

const settingsByKind = new Map<string, EnvironmentSettings>(
  [cuisineWorldSettings, textWorldSettings, externalSettings].map((e) => [
    e.kind,
    e as EnvironmentSettings,
  ]),
);

/** The kinds of environment there are, in the order a picker shows them. */
export const ENVIRONMENTS: readonly string[] = [...settingsByKind.keys()];

/** The environment of this kind, its title and settings; a clear error for an unknown one. */
export function environmentSettings(kind: string): EnvironmentSettings {
  const found = settingsByKind.get(kind);
  if (!found) throw new Error(`unknown environment "${kind}" (known: ${ENVIRONMENTS.join(', ')})`);
  return found;
}

/** The names of the settings an environment of this kind takes (`level`, `url`…). */
export function settingNames(kind: string): string[] {
  const { settings } = environmentSettings(kind);
  return settings instanceof z.ZodObject ? Object.keys(settings.shape) : [];
}

/** What is wrong with settings for an environment: the first problem, its path and message. */
export interface SettingsProblem {
  path: PropertyKey[];
  message: string;
}

/** Settings checked against their environment's schema: the parsed value or the first problem. */
export function checkSettings(
  kind: string,
  value: unknown,
): { ok: true; settings: unknown } | { ok: false; problem: SettingsProblem } {
  const parsed = environmentSettings(kind).settings.safeParse(value);
  if (parsed.success) return { ok: true, settings: parsed.data };
  const issue = parsed.error.issues[0]!;
  // A key the schema does not know is named in the message, not the path: name it in both.
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const message =
    keys.length > 0
      ? `not one of its settings${keys.length > 1 ? `, nor is ${keys.slice(1).join(', ')}` : ''} (it takes ${settingNames(kind).join(', ')})`
      : issue.message;
  return { ok: false, problem: { path: [...issue.path, ...keys.slice(0, 1)], message } };
}

export interface EnvironmentKind {
  kind: string;
  title: string;
  /** A fresh, unreset world. */
  create(): Environment;
  /** Level ids, in the order a picker shows them. */
  levels(): string[];
  /** The level id a name stands for (`3` and `L3` are `level_3`), or undefined. */
  level(name: string): string | undefined;
  /** One line about a level: its class, kitchen and dishes. */
  describeLevel(level: string): string;
  /** Problems with a level a person should know of (a dish whose tool the kitchen lacks). */
  checkLevel(level: string): string[];
  /** The rules, the level's knowledge and the hints, for a dispatcher's prompt. */
  briefing(env: Environment): Briefing;
  /** What one command looks like, for reading commands out of free text. */
  commandPattern: RegExp;
  /** A deterministic policy with no model: one valid command per agent. */
  greedy(env: Environment, agents?: readonly string[]): string[];
  /**
   * Commands read from a dispatcher's prompt alone (its messages' texts, oldest first), for
   * simulated answers: a policy that sees what a model would see and nothing of the world.
   */
  commandsFromPrompt?(texts: readonly string[]): string[];
  /**
   * `count` worked examples of `steps` steps each for a level and agent count, played by the
   * greedy policy on a different level than the one being played (as the paper's demo is).
   */
  demonstrations(level: string, agents: number, count: number, steps: number): DemoStep[][];
}

// Loaded with the registry, not on first use: an estimate made before a run (synchronous, and
// in the editor too) builds a dispatcher's prompts from the kind's briefing and demonstrations.
const kinds = new Map<string, EnvironmentKind>([['cuisineworld', cuisineWorldKind]]);

/** The kinds there are. */
export const ENVIRONMENT_KINDS = [...kinds.keys()];

/** The environment kind with this name, or undefined. */
export function findEnvironmentKind(kind: string): EnvironmentKind | undefined {
  return kinds.get(kind);
}

/** The environment kind with this name; throws a clear error for an unknown one. */
export async function environmentKind(kind: string): Promise<EnvironmentKind> {
  const found = kinds.get(kind);
  if (!found)
    throw new Error(`unknown environment "${kind}" (known: ${ENVIRONMENT_KINDS.join(', ')})`);
  return found;
}
