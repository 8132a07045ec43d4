import { z } from 'zod';
import { openEnvironment, resumeEnvironment } from '../../app/environments/episodes.ts';
import { oneLine } from '../../app/environments/external/transport.ts';
import type { EnvironmentEpisode } from '../../app/environments/types.ts';
import type { NodeContext, NodeExecutor } from '../../app/node-sdk/define.ts';
import { SIMULATED_PREFIX } from '../../app/schema/simulated.ts';
import { type Episode, episodeOutputs, episodeValue, readAction } from './episode.ts';
import type { SimulatorData } from './spec.ts';

/** The environment this node drives, through the contract every environment meets. */
const ENVIRONMENT = 'external';

/** What the outside simulator's report says of where the episode stands. */
const standing = z.object({
  url: z.string(),
  session: z.string(),
  state: z.record(z.string(), z.unknown()),
});

/**
 * One round of an episode. Without an episode to continue (round 1, or outside a loop) the node
 * resets the simulator, and plays the `action` too when one is given; with one, it plays the
 * round's action in that session. Once the episode is over (the simulator said done, or maxSteps
 * were played) it hands the last answer on and calls the simulator no more.
 */
export const execute: NodeExecutor<SimulatorData> = async (ctx) => {
  const { url, seed, maxSteps, timeoutMs, options } = ctx.data;
  const previous = carried(ctx);
  if (previous?.done) return episodeOutputs(previous);

  if (previous && !readAction(ctx.inputs.action, previous.actions)) {
    throw new Error(
      `round ${ctx.loop?.round ?? '?'} has no action to play: its action input is empty`,
    );
  }
  const agent = typeof ctx.inputs.agent === 'string' && ctx.inputs.agent ? ctx.inputs.agent : '';

  const settings = { url, seed, maxSteps, timeoutMs, options };
  const context = { signal: ctx.signal, allowedOrigins: ctx.allowedOrigins };
  const environment = previous
    ? resumeEnvironment(ENVIRONMENT, settings, { episode: previous }, context)
    : openEnvironment(ENVIRONMENT, settings, context);
  try {
    let episode = previous;
    if (!episode) {
      await environment.start();
      episode = shown(environment, {
        truncated: false,
        reward: 0,
        totalReward: 0,
        simulated: false,
      });
      await ctx.message(`reset (seed ${seed}): ${shortly(episode.observation)}`);
    }
    // Read after a reset, so an option letter names one of the actions it just offered.
    const wanted = readAction(ctx.inputs.action, episode.actions);
    if (!wanted || episode.done) return episodeOutputs(episode);

    environment.act(agent, wanted.action);
    const outcome = await environment.step();
    const played = shown(environment, {
      truncated: outcome.truncated === true,
      reward: outcome.reward ?? 0,
      totalReward: episode.totalReward + (outcome.reward ?? 0),
      simulated: episode.simulated || wanted.simulated,
    });
    await report(ctx, played, wanted.action, agent, outcome.info);
    return episodeOutputs(played);
  } finally {
    environment.close();
  }
};

/**
 * The episode as the environment now shows it (where it stands, what it offers) with what this
 * node keeps of it, in the order of the episode's fields: a loop's `unchanged` condition and a
 * run's stored outputs compare the value as written.
 */
function shown(
  environment: EnvironmentEpisode,
  kept: Pick<Episode, 'truncated' | 'reward' | 'totalReward' | 'simulated'>,
): Episode {
  const report = environment.report();
  const { url, session, state } = standing.parse(report.state);
  const view = environment.observe();
  return {
    url,
    session,
    step: report.step,
    done: report.done,
    truncated: kept.truncated,
    observation: view.text,
    actions: view.actions ?? [],
    reward: kept.reward,
    totalReward: kept.totalReward,
    state,
    simulated: kept.simulated,
  };
}

/** The episode arriving at the `episode` input, checked; none in round 1 or outside a loop. */
function carried(ctx: NodeContext<SimulatorData>): Episode | undefined {
  const value = ctx.inputs.episode;
  if (value === undefined || value === null || value === '') {
    if (ctx.loop && ctx.loop.round > 1) {
      throw new Error(
        `round ${ctx.loop.round} has no episode to continue: wire this node's episode output back to its episode input with an edge marked previousRound`,
      );
    }
    return undefined;
  }
  const parsed = episodeValue.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `episode: not an episode this node gave (${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}); wire its own episode output here`,
    );
  }
  return parsed.data;
}

/** The step as a run event (the editor's episode view) and as a line of the loop's transcript. */
async function report(
  ctx: NodeContext<SimulatorData>,
  episode: Episode,
  action: string,
  agent: string,
  info: Record<string, unknown> | undefined,
): Promise<void> {
  ctx.report('step', {
    step: episode.step - 1,
    commands: [{ command: action, by: agent || 'society' }],
    rejections: [],
    feedback: [episode.observation],
    completed: [],
    failed: [],
    state: {
      url: episode.url,
      session: episode.session,
      step: episode.step,
      maxSteps: ctx.data.maxSteps,
      reward: episode.reward,
      totalReward: episode.totalReward,
      actions: episode.actions,
      state: episode.state,
      ...(info ? { info } : {}),
      ...(episode.truncated ? { truncated: true } : {}),
    },
    attempts: 1,
    done: episode.done,
    simulated: episode.simulated,
  });
  const end = episode.truncated
    ? ` · stopped at maxSteps ${ctx.data.maxSteps}`
    : episode.done
      ? ' · done'
      : '';
  await ctx.message(
    `${episode.simulated ? SIMULATED_PREFIX : ''}t=${episode.step - 1}: ${action} → ${shortly(episode.observation)} (reward ${episode.reward})${end}`,
  );
}

/** An observation as one line of a transcript. */
function shortly(text: string): string {
  return oneLine(text, 300);
}
