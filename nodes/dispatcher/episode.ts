/**
 * The parts of a dispatch episode that both the run (dispatch.ts) and the estimate before it
 * (estimate.ts) read: the world an environment hands over, the prompt settings taken from the
 * node's data, and the refusals the dispatcher writes itself. One place, so the estimate builds
 * the prompts the run sends.
 */
import { agentOf, type DispatchSettings, feedbackLines } from '../../app/environments/dispatch.ts';
import type { Rejection } from '../../app/environments/types.ts';
import type { DispatcherData } from './spec.ts';

/** The episode set-up an environment node outputs. */
export interface World {
  kind: string;
  level: string;
  agents: number;
  seed: string | number;
  maxSteps: number;
  alpha: number;
  orderCap: number;
  /** How turns count (`ours`, or MindAgent's runner: `paper`). */
  runner: 'ours' | 'paper';
}

/** The reset options of a world input (the environment's own settings). */
export function worldOptions(world: World): Record<string, unknown> {
  return { alpha: world.alpha, orderCap: world.orderCap, runner: world.runner };
}

/** The world input, checked; throws when it did not come from an environment node. */
export function readWorld(value: unknown): World {
  const w = value as Partial<World> | undefined;
  if (
    !w ||
    typeof w.kind !== 'string' ||
    typeof w.level !== 'string' ||
    typeof w.agents !== 'number'
  ) {
    throw new Error('the world input must come from an environment node');
  }
  return {
    kind: w.kind,
    level: w.level,
    agents: w.agents,
    seed: w.seed ?? 0,
    maxSteps: w.maxSteps ?? 60,
    alpha: w.alpha ?? 1,
    orderCap: w.orderCap ?? 6,
    runner: w.runner === 'paper' ? 'paper' : 'ours',
  };
}

/** What of the node's data shapes each step's prompt. */
export function dispatchSettings(data: DispatcherData): DispatchSettings {
  return {
    behaviour: data.behaviour,
    retries: data.retries,
    feedback: data.feedback,
    hints: data.hints,
    history: data.history,
  };
}

/** A refusal for each agent the model left without a command (every agent needs one). */
export function missingCommands(
  controlled: readonly string[],
  chosen: readonly string[],
  nothingRead: boolean,
): Rejection[] {
  if (nothingRead) {
    return [
      {
        command: '(no command)',
        stage: 'syntax',
        reason: 'no-commands',
        message: `no command could be read from your answer; write one per agent, like goto_${controlled[0]}_storage0`,
      },
    ];
  }
  return controlled
    .filter((agent) => !chosen.some((c) => agentOf(c) === agent))
    .map((agent) => ({
      command: `(none for ${agent})`,
      agent,
      stage: 'assignment' as const,
      reason: 'missing-command',
      message: `${agent} got no command; give every agent one (noop_${agent} to wait)`,
    }));
}

/** What the model is told before it is asked again for the same step (`retry`). */
export function retryPrompt(rejections: readonly Rejection[]): string {
  return `Those commands cannot all run:\n${feedbackLines(rejections)
    .map((f) => `- ${f}`)
    .join('\n')}\nGive the commands for this step again.\nCommands:`;
}
