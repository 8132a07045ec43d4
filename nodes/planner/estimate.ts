/**
 * What a planner sends, for the estimate before a run, built with the functions that build its
 * prompts at run time:
 *
 * - plan mode: the planning conversation (task, inputs, the expert table) once, then, in the
 *   worst case only, each repair attempt with the refused answers and what was wrong; and the
 *   expert calls (local operations included, as a run counts them) of the plan the rule
 *   planner makes for the task: a model's plan is not known before it answers;
 * - dispatch mode: one call per step of the episode the connected environment sets up (its
 *   `maxSteps`), each holding the rules, recipes, hints, demonstrations, the level's starting
 *   state, the history window (answers as long as the answer may be) and, from the second step
 *   on, a refusal for every agent the model commands; under `retry`, the extra attempts.
 */

import { dispatchMessages, feedbackLines, stepPrompt } from '../../app/environments/dispatch.ts';
import { findEnvironmentKind } from '../../app/environments/registry.ts';
import { catalogueEntry } from '../../app/experts/catalogue.ts';
import {
  entriesFor,
  type PlanningTask,
  planningPrompt,
  readPlanAnswer,
  repairMessage,
  rulePlan,
} from '../../app/experts/planner.ts';
import type { CallEstimateContext, EstimatedCall } from '../../app/node-sdk/estimate.ts';
import type { ChatMessage } from '../../app/providers/types.ts';
import {
  dispatchSettings,
  missingCommands,
  readWorld,
  retryPrompt,
  type World,
} from './episode.ts';
import { allowedExperts, PLAN_MAX_TOKENS, type PlannerData } from './spec.ts';

/** The calls one copy of a planner makes in a run. */
export function plannerCalls(ctx: CallEstimateContext<PlannerData>): EstimatedCall[] {
  const calls = ctx.data.mode === 'dispatch' ? dispatchCalls(ctx) : planCalls(ctx);
  return ctx.executions.flatMap(() => calls);
}

/** Tokens of a conversation's text, counted as a provider with no usage counts them. */
function conversationTokens(ctx: CallEstimateContext<PlannerData>, messages: ChatMessage[]) {
  return ctx.tokens(
    messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n'),
  );
}

function planCalls(ctx: CallEstimateContext<PlannerData>): EstimatedCall[] {
  const { data } = ctx;
  const experts = entriesFor(allowedExperts(data));
  const task: PlanningTask = {
    description: data.task ?? '',
    inputs: data.inputs,
    output: data.output,
  };
  const calls: EstimatedCall[] = [];
  if (data.model) {
    const completionTokens = ctx.answerLength(data.maxTokens ?? PLAN_MAX_TOKENS);
    // The values themselves never reach the planning model, only the task and the inputs' names.
    const first =
      conversationTokens(ctx, planningPrompt(task, experts, data.prompt)) +
      (data.task ? 0 : ctx.portTokens(ctx.node, 'task'));
    calls.push({ promptTokens: first, completionTokens });
    const refused = readPlanAnswer('');
    const repair = ctx.tokens(repairMessage('error' in refused ? [refused.error] : []));
    for (let n = 2; n <= data.maxAttempts; n++) {
      calls.push({
        phase: 'repair',
        retry: true,
        promptTokens: first + (n - 1) * (completionTokens + repair),
        completionTokens,
      });
    }
  }
  const plan = rulePlan(task, experts);
  if (plan.ok) {
    for (const step of plan.plan.steps) {
      const entry = catalogueEntry(step.module);
      const local = data.preferLocal && entry?.local;
      const model = local ? `local:${local}` : (entry?.models.default ?? step.module);
      calls.push({ phase: 'plan', promptTokens: 0, expert: { model } });
    }
  }
  return calls;
}

/**
 * A node's dispatch calls for a known episode, by the episode and answer length they were built
 * for: every copy of a replicated dispatcher plays the same episode, so it is built once.
 */
const built = new WeakMap<PlannerData, Map<string, EstimatedCall[]>>();

function dispatchCalls(ctx: CallEstimateContext<PlannerData>): EstimatedCall[] {
  const { data } = ctx;
  if (data.controller !== 'model') return [];
  const known = ctx.knownInput(ctx.node, 'world');
  const setUp = episodeOf(known);
  // A world that is not known before the run: the usual 60 steps of what is connected.
  if (!setUp)
    return Array.from({ length: 60 }, () => ({ promptTokens: ctx.inputTokens(ctx.node) }));
  const key = `${ctx.completion}\u0000${JSON.stringify(known)}`;
  const byEpisode = built.get(data) ?? new Map<string, EstimatedCall[]>();
  built.set(data, byEpisode);
  const calls = byEpisode.get(key) ?? episodeCalls(ctx, setUp);
  byEpisode.set(key, calls);
  return calls;
}

function episodeCalls(
  ctx: CallEstimateContext<PlannerData>,
  setUp: NonNullable<ReturnType<typeof episodeOf>>,
): EstimatedCall[] {
  const { data } = ctx;
  const { kind, world, level } = setUp;
  const env = kind.create();
  env.reset({
    level,
    agents: world.agents,
    seed: world.seed,
    maxSteps: world.maxSteps,
    options: { alpha: world.alpha, orderCap: world.orderCap },
  });
  const agents = env.agents();
  const controlled = agents.filter((a) => !data.seats.includes(a));
  if (controlled.length === 0) return [];
  const settings = dispatchSettings(data);
  const briefing = kind.briefing(env);
  const demos = kind.demonstrations(
    level,
    data.demoAgents ?? world.agents,
    data.demos,
    data.demoSteps,
  );
  const state = env.render();
  const refusals = missingCommands(controlled, [], false);
  // History turns as the run keeps them; their answers are counted at the answer's length.
  const turn = {
    user: stepPrompt({ settings, feedback: [], suggestions: [], state }),
    assistant: '',
  };
  const retry = ctx.tokens(retryPrompt(refusals));
  const calls: EstimatedCall[] = [];
  for (let step = 0; step < world.maxSteps; step++) {
    const history = Array.from({ length: Math.min(step, settings.history) }, () => turn);
    const messages = dispatchMessages({
      briefing,
      demos,
      agents,
      seats: data.seats,
      settings,
      history,
      state,
      feedback: step === 0 ? [] : feedbackLines(refusals),
      suggestions: [],
    });
    const prompt = conversationTokens(ctx, messages) + history.length * ctx.completion;
    calls.push({ promptTokens: prompt });
    if (settings.behaviour !== 'retry') continue;
    for (let attempt = 1; attempt <= settings.retries; attempt++) {
      calls.push({
        phase: 'retry',
        retry: true,
        promptTokens: prompt + attempt * (ctx.completion + retry),
      });
    }
  }
  return calls;
}

/** The environment kind, world and level a known world input stands for, if it is one. */
function episodeOf(value: unknown) {
  let world: World;
  try {
    world = readWorld(value);
  } catch {
    return undefined;
  }
  const kind = findEnvironmentKind(world.kind);
  const level = kind?.level(world.level);
  return kind && level ? { kind, world, level } : undefined;
}
