/**
 * The environments a society can act in, by kind. Each kind makes worlds, briefs a dispatcher
 * about them, reads commands out of text, and has a policy that needs no model.
 */
import { cuisineWorldKind } from './cuisineworld/kind.ts';
import type { Briefing, DemoStep } from './dispatch.ts';
import type { Environment } from './types.ts';

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
