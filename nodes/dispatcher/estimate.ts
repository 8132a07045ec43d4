/**
 * What a dispatcher sends, for the estimate before a run, built with the functions that build
 * its prompts at run time: one call per step of the episode the connected environment sets up
 * (its `maxSteps`), each holding the rules, recipes, hints, demonstrations, the level's
 * starting state, the history window (answers as long as the answer may be) and, from the
 * second step on, a refusal for every agent the model commands; under `retry`, the extra
 * attempts.
 */

import { dispatchMessages, feedbackLines, stepPrompt } from '../../app/environments/dispatch.ts';
import { findEnvironmentKind } from '../../app/environments/registry.ts';
import type { CallEstimateContext, EstimatedCall } from '../../app/node-sdk/estimate.ts';
import type { ChatMessage } from '../../app/providers/types.ts';
import {
  dispatchSettings,
  missingCommands,
  readWorld,
  retryPrompt,
  type World,
  worldOptions,
} from './episode.ts';
import type { DispatcherData } from './spec.ts';

/** The calls one copy of a dispatcher makes in a run. */
export function dispatcherCalls(ctx: CallEstimateContext<DispatcherData>): EstimatedCall[] {
  const calls = dispatchCalls(ctx);
  return ctx.executions.flatMap(() => calls);
}

/** Tokens of a conversation's text, counted as a provider with no usage counts them. */
function conversationTokens(ctx: CallEstimateContext<DispatcherData>, messages: ChatMessage[]) {
  return ctx.tokens(
    messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n'),
  );
}

/**
 * A node's dispatch calls for a known episode, by the episode and answer length they were built
 * for: every copy of a replicated dispatcher plays the same episode, so it is built once.
 */
const built = new WeakMap<DispatcherData, Map<string, EstimatedCall[]>>();

function dispatchCalls(ctx: CallEstimateContext<DispatcherData>): EstimatedCall[] {
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
  ctx: CallEstimateContext<DispatcherData>,
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
    options: worldOptions(world),
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
