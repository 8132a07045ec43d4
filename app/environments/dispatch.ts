/**
 * Dispatching: one command per agent per step, planned centrally, in the manner of MindAgent
 * (Gong et al., Sec. 4): the prompt is assembled from the environment's rules, its recipes,
 * hints, worked demonstrations, the current state, the last step's feedback and a window of
 * history; commands are read out of the model's text with a grammar that tolerates chatter, and
 * checked in stages before the world runs them. Every refusal becomes feedback text.
 *
 * Two behaviours on refusal, both offered and labelled:
 * - `feedback` (paper-faithful): the step is played as it is; refused commands do nothing, time
 *   still passes, and the feedback goes into the next step's prompt;
 * - `retry`: the model is asked again with the feedback, up to `retries` times, before the
 *   step is committed (a product choice, not the paper's protocol).
 */
import type { ChatMessage } from '../providers/types.ts';
import type { Environment, Rejection, Validation } from './types.ts';

/** What an environment tells a dispatcher about itself, in words. */
export interface Briefing {
  /** The verbs, their arguments and the rules of the world. */
  rules: string;
  /** The level's domain knowledge (CuisineWorld: its recipes). */
  knowledge: string;
  /** Helpful hints ("inference knowledge"); left out in the no-hints ablation. */
  hints: string[];
}

/** One worked step of a demonstration: the state shown, and the commands given. */
export interface DemoStep {
  state: string;
  commands: string[];
}

export interface DispatchSettings {
  behaviour: 'feedback' | 'retry';
  /** Extra attempts per step under `retry`. */
  retries: number;
  /** Put the last step's feedback into the prompt (off: the no-feedback ablation). */
  feedback: boolean;
  /** Include the hints (off: the no-hints ablation). */
  hints: boolean;
  /** Earlier exchanges kept in the prompt (each a state and the commands given). */
  history: number;
}

/**
 * Reads commands out of text: every match of the environment's command pattern, in order. When
 * the answer sets its commands apart in a block (between *** lines or in a ``` fence, as the
 * demonstrations and most models do), only the last block that holds commands is read, so a
 * command mentioned in the reasoning ("last time put_agent0_blender0 failed") is not taken for
 * one given. Underscores used for emphasis around a command do not hide it.
 */
export function extractCommands(text: string, pattern: RegExp): string[] {
  const global = new RegExp(
    pattern.source,
    pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
  );
  const read = (part: string) =>
    [...part.replace(/(^|\s)_+|_+(\s|$)/g, '$1 $2').matchAll(global)].map((m) => m[0]);
  const blocks = [
    ...text.matchAll(/(?:\*{3,}|`{3,}[\w-]*)[ \t]*\n([\s\S]*?)\n[ \t]*(?:\*{3,}|`{3,})/g),
  ]
    .map((m) => read(m[1]!))
    .filter((commands) => commands.length > 0);
  return blocks.at(-1) ?? read(text);
}

/** The agent a command is for (`goto_agent1_storage0` → `agent1`), if it names one. */
export function agentOf(command: string): string | undefined {
  return /_(agent\d+)(?:_|$)/.exec(command)?.[1];
}

/**
 * Splits commands between the model and people: commands the model gave for an agent a person
 * plays are refused (the person's own command stands), so the model learns to leave it alone.
 */
export function withoutSeats(
  commands: string[],
  seats: readonly string[],
): { kept: string[]; refused: Rejection[] } {
  const kept: string[] = [];
  const refused: Rejection[] = [];
  for (const command of commands) {
    const agent = agentOf(command);
    if (agent && seats.includes(agent)) {
      refused.push({
        command,
        agent,
        stage: 'assignment',
        reason: 'seat-taken',
        message: `${agent} is played by a person; do not give it commands`,
      });
    } else kept.push(command);
  }
  return { kept, refused };
}

/** Feedback lines for a prompt: every refusal, once, in order. */
export function feedbackLines(rejections: readonly Rejection[]): string[] {
  return [...new Set(rejections.map((r) => `${r.command}: ${r.message}`))];
}

export interface PromptParts {
  briefing: Briefing;
  demos: DemoStep[][];
  /** Agents the model commands, and those people play. */
  agents: string[];
  seats: string[];
  settings: DispatchSettings;
  /** Earlier steps: the state shown and the model's answer. */
  history: Array<{ user: string; assistant: string }>;
  state: string;
  feedback: string[];
  suggestions: string[];
}

/** The conversation for one step. */
export function dispatchMessages(parts: PromptParts): ChatMessage[] {
  const { briefing, settings } = parts;
  const rules = [
    briefing.rules,
    `Recipes:\n${briefing.knowledge}`,
    ...(settings.hints && briefing.hints.length > 0
      ? [`Hints:\n${briefing.hints.map((h) => `- ${h}`).join('\n')}`]
      : []),
  ].join('\n\n');
  const messages: ChatMessage[] = [{ role: 'user', content: rules }];
  for (const demo of parts.demos) {
    for (const step of demo) {
      messages.push({ role: 'user', content: `${step.state}\nCommands:` });
      messages.push({ role: 'assistant', content: step.commands.join('\n') });
    }
  }
  const controlled = parts.agents.filter((a) => !parts.seats.includes(a));
  messages.push({
    role: 'user',
    content: [
      `Now the real game. You command ${controlled.length} agent${controlled.length === 1 ? '' : 's'} (${controlled.join(', ')}): give exactly one command for each, one per line, in the order they should run.`,
      ...(parts.seats.length > 0
        ? [
            `${parts.seats.join(', ')} ${parts.seats.length === 1 ? 'is' : 'are'} played by a person: never command ${parts.seats.length === 1 ? 'it' : 'them'}.`,
          ]
        : []),
    ].join(' '),
  });
  messages.push({ role: 'assistant', content: 'Understood.' });
  // slice(-0) would keep everything: a window of 0 keeps nothing.
  for (const turn of settings.history > 0 ? parts.history.slice(-settings.history) : []) {
    messages.push({ role: 'user', content: turn.user });
    messages.push({ role: 'assistant', content: turn.assistant });
  }
  messages.push({ role: 'user', content: stepPrompt(parts) });
  return messages;
}

/** The current step's message: feedback, suggestions, the state, and the cue. */
export function stepPrompt(
  parts: Pick<PromptParts, 'settings' | 'feedback' | 'suggestions' | 'state'>,
): string {
  const lines: string[] = [];
  if (parts.settings.feedback && parts.feedback.length > 0)
    lines.push(
      `Feedback on your last commands:\n${parts.feedback.map((f) => `- ${f}`).join('\n')}`,
    );
  if (parts.settings.feedback && parts.suggestions.length > 0)
    lines.push(`Suggestions:\n${parts.suggestions.map((s) => `- ${s}`).join('\n')}`);
  lines.push(parts.state, 'Commands:');
  return lines.join('\n\n');
}

/** A validation with extra refusals added in front (the model's commands for taken seats). */
export function withRefusals(validation: Validation, refused: Rejection[]): Validation {
  if (refused.length === 0) return validation;
  return { ...validation, ok: false, rejections: [...refused, ...validation.rejections] };
}

/** Runs a demonstration episode with a policy and keeps its first steps as a worked example. */
export function demonstration(
  env: Environment,
  policy: (env: Environment) => string[],
  steps: number,
): DemoStep[] {
  const demo: DemoStep[] = [];
  for (let i = 0; i < steps; i++) {
    const state = env.render();
    const commands = policy(env);
    demo.push({ state, commands });
    if (env.step(commands).done) break;
  }
  return demo;
}
