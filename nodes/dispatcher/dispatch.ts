import { fraction } from '../../app/environments/cos.ts';
import {
  agentOf,
  dispatchMessages,
  extractCommands,
  feedbackLines,
  stepPrompt,
  withoutSeats,
  withRefusals,
} from '../../app/environments/dispatch.ts';
import { type EnvironmentKind, environmentKind } from '../../app/environments/registry.ts';
import type { Rejection, Validation } from '../../app/environments/types.ts';
import type { NodeContext, NodeOutputs } from '../../app/node-sdk/define.ts';
import type { AnswerShape, ChatMessage } from '../../app/providers/types.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
import {
  dispatchSettings,
  missingCommands,
  readWorld,
  retryPrompt,
  worldOptions,
} from './episode.ts';
import type { StepReport } from './report.ts';
import type { DispatcherData } from './spec.ts';

/**
 * For simulated runs: answers made of the commands the environment's prompt-reading policy gives
 * (it sees the prompt only, as a model would), so a simulated episode plays instead of being
 * refused step after step. Real models never see it.
 */
function simulatedCommands(kind: EnvironmentKind): { answerShape?: AnswerShape } {
  const fromPrompt = kind.commandsFromPrompt;
  if (!fromPrompt) return {};
  const text = (m: ChatMessage) =>
    typeof m.content === 'string'
      ? m.content
      : m.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return {
    answerShape: {
      kind: 'custom',
      answer: (request) => fromPrompt(request.messages.map(text)).join('\n'),
    },
  };
}

function mergeCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const merged = { ...a };
  for (const [k, v] of Object.entries(b)) merged[k] = (merged[k] ?? 0) + v;
  return merged;
}

/**
 * Plays one episode: each step the commands come from the model (or the greedy rules) and, for
 * seats people take, from them; they are checked, the world runs them, and the step is logged
 * as a `step` report and a message (so the debugger can stop at every step).
 */
export async function dispatch(ctx: NodeContext<DispatcherData>): Promise<NodeOutputs> {
  const data = ctx.data;
  const world = readWorld(ctx.inputs.world);
  const kind = await environmentKind(world.kind);
  const env = kind.create();
  env.reset({
    level: world.level,
    agents: world.agents,
    seed: world.seed,
    maxSteps: world.maxSteps,
    options: worldOptions(world),
  });
  const agents = env.agents();
  const unknownSeats = data.seats.filter((s) => !agents.includes(s));
  if (unknownSeats.length > 0) {
    throw new Error(
      `no ${unknownSeats.join(', ')} in a ${agents.length}-agent kitchen (${agents.join(', ')})`,
    );
  }
  const settings = dispatchSettings(data);
  const useModel = data.controller === 'model';
  const briefing = kind.briefing(env);
  const demos = useModel
    ? kind.demonstrations(world.level, data.demoAgents ?? world.agents, data.demos, data.demoSteps)
    : [];
  const history: Array<{ user: string; assistant: string }> = [];
  let feedback: string[] = [];
  let suggestions: string[] = [];
  /** What people were told went wrong with their own commands last step. */
  let personFeedback = new Map<string, string[]>();
  let simulated = false;
  const label = () => simulatedPrefix(simulated);
  const controlled = agents.filter((a) => !data.seats.includes(a));
  /** Refusals the world never saw: taken seats, missing commands, discarded attempts. */
  const extraInvalid: Record<string, number> = {};
  const count = (rejections: readonly Rejection[]) => {
    for (const r of rejections) extraInvalid[r.reason] = (extraInvalid[r.reason] ?? 0) + 1;
  };

  for (let step = 0; ; step++) {
    const state = env.render();

    // People first: each seat's command, checked on its own so a person's slip never costs
    // the model its step, and told back to that person next step.
    const people: string[] = [];
    const personRejections: Rejection[] = [];
    for (const agent of data.seats) {
      const told = personFeedback.get(agent) ?? [];
      const answer = await ctx.askHuman({
        name: `${agent}@t${step}`,
        prompt: `${told.length > 0 ? `Last step: ${told.join('; ')}\n\n` : ''}${state}\n\nYou play ${agent}. Your command (for example noop_${agent}):`,
      });
      const own = extractCommands(answer, kind.commandPattern).find((c) => agentOf(c) === agent);
      if (!own) {
        personRejections.push({
          command: answer.trim().slice(0, 80) || '(nothing)',
          agent,
          stage: 'syntax',
          reason: 'unreadable',
          message: `no command for ${agent} could be read; write one like goto_${agent}_storage0`,
        });
        continue;
      }
      const alone = env.validate([own]);
      const early = alone.rejections.filter(
        (r) => r.stage === 'syntax' || r.stage === 'vocabulary',
      );
      if (early.length > 0) personRejections.push(...early);
      else people.push(own);
    }

    let chosen: string[] = [];
    let refused: Rejection[] = [];
    const discarded: Rejection[] = [];
    let attempts = 1;
    let answerText = '';
    if (!useModel) {
      chosen = kind.greedy(env, controlled);
    } else if (controlled.length > 0) {
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
          ...(data.maxTokens === undefined ? {} : { maxTokens: data.maxTokens }),
          ...(data.temperature === undefined ? {} : { temperature: data.temperature }),
          ...simulatedCommands(kind),
        });
        if (result.simulated) simulated = true;
        answerText = result.text;
        const read = extractCommands(result.text, kind.commandPattern);
        const split = withoutSeats(read, data.seats);
        chosen = split.kept;
        refused = [...split.refused, ...missingCommands(controlled, chosen, read.length === 0)];
        const check: Validation = withRefusals(env.validate([...chosen, ...people]), refused);
        // Only the model's own mistakes are worth asking it again about.
        const modelsFault = check.rejections.filter(
          (r) => !r.agent || !data.seats.includes(r.agent),
        );
        if (
          modelsFault.length === 0 ||
          settings.behaviour === 'feedback' ||
          attempts > settings.retries
        )
          break;
        // Retry before committing: the same step, told what was wrong.
        discarded.push(...modelsFault);
        attempts++;
        messages.push({ role: 'assistant', content: result.text });
        messages.push({
          role: 'user',
          content: retryPrompt(modelsFault),
        });
      }
    }

    const commands = [...chosen, ...people];
    const result = env.step(commands);
    const rejections = [...personRejections, ...refused, ...result.validation.rejections];
    count([...personRejections, ...refused, ...discarded]);
    const forModel = rejections.filter((r) => !r.agent || !data.seats.includes(r.agent));
    feedback = [
      ...feedbackLines(forModel),
      ...result.feedback.filter((f) => !rejections.some((r) => f.includes(r.message))),
    ];
    personFeedback = new Map(
      data.seats.map((seat) => [
        seat,
        rejections.filter((r) => r.agent === seat).map((r) => `${r.command}: ${r.message}`),
      ]),
    );
    suggestions = result.suggestions;
    if (useModel && controlled.length > 0) {
      history.push({
        user: stepPrompt({ settings, feedback: [], suggestions: [], state }),
        assistant: answerText,
      });
    }
    const by = (command: string) =>
      people.includes(command) ? 'person' : useModel ? 'model' : 'rules';
    ctx.report('step', {
      step,
      commands: commands.map((command) => ({ command, by: by(command) })),
      rejections,
      ...(discarded.length > 0 ? { retried: discarded } : {}),
      feedback,
      completed: result.completed,
      failed: result.failed,
      state: env.snapshot(),
      attempts,
      done: result.done,
      simulated,
    } satisfies StepReport);
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
    runner: world.runner,
    steps: m.steps,
    /** Turns of the budget used: more than `steps` when the paper runner skipped unread turns. */
    turns: m.turns ?? m.steps,
    completed: m.completed,
    failed: m.failed,
    open: m.open,
    /** completed / (completed + failed), the paper's formula; null when no order closed. */
    completionRate: fraction(m.completed, closed) ?? null,
    /** completed / (completed + failed + open), as the paper's tables and code count. */
    completionRateWithOpen: fraction(m.completed, closed + m.open) ?? null,
    invalid: mergeCounts(m.invalid, extraInvalid),
    idleSteps: m.idleSteps,
    simulated,
  };
  const refusedCount = Object.values(metrics.invalid).reduce((a, b) => a + b, 0);
  const summary = `${label()}${world.level}, ${world.agents} agents, alpha ${world.alpha}: ${m.completed} completed, ${m.failed} failed, ${m.open} open in ${m.steps} steps${(m.turns ?? m.steps) !== m.steps ? ` (${m.turns} turns)` : ''}; ${refusedCount} command${refusedCount === 1 ? '' : 's'} refused`;
  return { metrics, summary };
}
