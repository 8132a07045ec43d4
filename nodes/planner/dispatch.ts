import {
  type DispatchSettings,
  dispatchMessages,
  extractCommands,
  feedbackLines,
  stepPrompt,
  withoutSeats,
  withRefusals,
} from '../../app/environments/dispatch.ts';
import { environmentKind } from '../../app/environments/registry.ts';
import type { Rejection, Validation } from '../../app/environments/types.ts';
import type { NodeContext, NodeOutputs } from '../../app/nodes/define.ts';
import type { ChatMessage } from '../../app/providers/types.ts';
import type { PlannerData } from './spec.ts';

/** The episode set-up an environment node outputs. */
interface World {
  kind: string;
  level: string;
  agents: number;
  seed: string | number;
  maxSteps: number;
  alpha: number;
  orderCap: number;
}

function readWorld(value: unknown): World {
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
  };
}

/**
 * Plays one episode: each step the commands come from the model (or the greedy rules) and, for
 * seats people take, from them; they are checked, the world runs them, and the step is logged
 * as an `environment.step` event and a message (so the debugger can stop at every step).
 */
export async function dispatch(ctx: NodeContext<PlannerData>): Promise<NodeOutputs> {
  const data = ctx.data;
  const world = readWorld(ctx.inputs.world);
  const kind = await environmentKind(world.kind);
  const env = kind.create();
  env.reset({
    level: world.level,
    agents: world.agents,
    seed: world.seed,
    maxSteps: world.maxSteps,
    options: { alpha: world.alpha, orderCap: world.orderCap },
  });
  const agents = env.agents();
  const unknownSeats = data.seats.filter((s) => !agents.includes(s));
  if (unknownSeats.length > 0) {
    throw new Error(
      `no ${unknownSeats.join(', ')} in a ${agents.length}-agent kitchen (${agents.join(', ')})`,
    );
  }
  const settings: DispatchSettings = {
    behaviour: data.behaviour,
    retries: data.retries,
    feedback: data.feedback,
    hints: data.hints,
    history: data.history,
  };
  const useModel = data.controller === 'model';
  const briefing = kind.briefing(env);
  const demos = useModel
    ? kind.demonstrations(world.level, world.agents, data.demos, data.demoSteps)
    : [];
  const history: Array<{ user: string; assistant: string }> = [];
  let feedback: string[] = [];
  let suggestions: string[] = [];
  let simulated = false;
  const label = () => (simulated ? '[simulated] ' : '');

  for (let step = 0; ; step++) {
    const state = env.render();
    const people: string[] = [];
    for (const agent of data.seats) {
      const answer = await ctx.askHuman({
        name: `${agent}@t${step}`,
        prompt: `${state}\n\nYou play ${agent}. Your command (for example noop_${agent}):`,
      });
      people.push(
        ...extractCommands(answer, kind.commandPattern)
          .filter((c) => c.includes(`_${agent}`))
          .slice(0, 1),
      );
    }
    const controlled = agents.filter((a) => !data.seats.includes(a));

    let chosen: string[];
    let refused: Rejection[] = [];
    let attempts = 1;
    let answerText = '';
    if (!useModel) {
      chosen = kind.greedy(env, controlled);
    } else {
      const messages: ChatMessage[] = dispatchMessages({
        briefing,
        demos,
        agents,
        seats: data.seats,
        settings,
        history,
        state,
        feedback,
        suggestions,
      });
      for (;;) {
        const result = await ctx.callModel({
          profile: data.model!,
          messages,
          maxTokens: data.maxTokens,
          ...(data.temperature === undefined ? {} : { temperature: data.temperature }),
        });
        if (result.simulated) simulated = true;
        answerText = result.text;
        const split = withoutSeats(extractCommands(result.text, kind.commandPattern), data.seats);
        chosen = split.kept;
        refused = split.refused;
        const check: Validation = withRefusals(env.validate([...chosen, ...people]), refused);
        if (check.ok || settings.behaviour === 'feedback' || attempts > settings.retries) break;
        // Retry before committing: the same step, told what was wrong.
        attempts++;
        messages.push({ role: 'assistant', content: result.text });
        messages.push({
          role: 'user',
          content: `Those commands cannot all run:\n${feedbackLines(check.rejections)
            .map((f) => `- ${f}`)
            .join('\n')}\nGive the commands for this step again.\nCommands:`,
        });
      }
    }

    const commands = [...chosen, ...people];
    const result = env.step(commands);
    const rejections = [...refused, ...result.validation.rejections];
    feedback = [
      ...feedbackLines(rejections),
      ...result.feedback.filter((f) => !rejections.some((r) => f.includes(r.message))),
    ];
    suggestions = result.suggestions;
    if (useModel) {
      history.push({
        user: stepPrompt({ settings, feedback: [], suggestions: [], state }),
        assistant: answerText,
      });
    }
    const by = (command: string) =>
      people.includes(command) ? 'person' : useModel ? 'model' : 'rules';
    ctx.reportStep({
      step,
      commands: commands.map((command) => ({ command, by: by(command) })),
      rejections,
      feedback,
      completed: result.completed,
      failed: result.failed,
      state: env.snapshot(),
      attempts,
      done: result.done,
    });
    const refusedText =
      rejections.length > 0 ? ` · refused: ${rejections.map((r) => r.reason).join(', ')}` : '';
    const served = result.completed.length > 0 ? ` · served ${result.completed.join(', ')}` : '';
    await ctx.message(
      `${label()}t=${step}: ${commands.length > 0 ? commands.join(' ') : '(no commands)'}${refusedText}${served}`,
    );
    if (result.done) break;
  }

  const m = env.metrics();
  const closed = m.completed + m.failed;
  const metrics = {
    kind: world.kind,
    level: world.level,
    agents: world.agents,
    alpha: world.alpha,
    seed: world.seed,
    controller: useModel ? 'model' : 'greedy',
    behaviour: settings.behaviour,
    steps: m.steps,
    completed: m.completed,
    failed: m.failed,
    open: m.open,
    /** completed / (completed + failed), the paper's per-τ fraction. */
    completionRate: closed > 0 ? m.completed / closed : 0,
    /** completed / (completed + failed + open), as the public code counts. */
    completionRateWithOpen: closed + m.open > 0 ? m.completed / (closed + m.open) : 0,
    invalid: m.invalid,
    idleSteps: m.idleSteps,
    simulated,
  };
  const summary = `${label()}${world.level}, ${world.agents} agents, alpha ${world.alpha}: ${m.completed} completed, ${m.failed} failed, ${m.open} open in ${m.steps} steps; ${Object.values(m.invalid).reduce((a, b) => a + b, 0)} commands refused`;
  return { metrics, summary };
}
