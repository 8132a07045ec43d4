import { openEnvironment, resumeEnvironment } from '../../app/environments/episodes.ts';
import { oneLine } from '../../app/environments/external/transport.ts';
import type { EnvironmentEpisode } from '../../app/environments/types.ts';
import type { NodeContext, NodeExecutor } from '../../app/node-sdk/define.ts';
import { SIMULATED_PREFIX } from '../../app/schema/simulated.ts';
import { type Episode, episodeOutputs, episodeValue, readAction } from './episode.ts';
import { episodeSettings, type SimulatorData } from './spec.ts';

/**
 * One round of an episode of the environment the node's `kind` names, driven only through the
 * contract every environment meets. Without an episode to continue (round 1, or outside a loop)
 * the node starts one, and plays the `action` too when one is given; with one, it plays the
 * round's action where the episode stands. Once the episode is over (the world said done, or
 * maxSteps were played) it hands the last episode on and plays no more.
 */
export const execute: NodeExecutor<SimulatorData> = async (ctx) => {
  const { kind, seed } = ctx.data;
  const carried = carriedEpisode(ctx);
  const previous = carried?.episode;
  if (carried?.episode.done) return { ...episodeOutputs(carried.episode), episode: carried.given };

  if (previous && !readAction(ctx.inputs.action, previous.actions)) {
    throw new Error(
      `round ${ctx.loop?.round ?? '?'} has no action to play: its action input is empty`,
    );
  }
  const agent = typeof ctx.inputs.agent === 'string' && ctx.inputs.agent ? ctx.inputs.agent : '';

  const settings = episodeSettings(ctx.data);
  const context = { signal: ctx.signal, allowedOrigins: ctx.allowedOrigins };
  const environment = carried
    ? resumeEnvironment(kind, settings, carried.episode.saved ?? carried.given, context)
    : openEnvironment(kind, settings, context);
  try {
    let episode = previous;
    if (!episode) {
      await environment.start();
      episode = shown(environment, agent, {
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
    const played = shown(environment, agent, {
      truncated: outcome.truncated === true,
      reward: outcome.reward ?? 0,
      totalReward: episode.totalReward + (outcome.reward ?? 0),
      simulated: episode.simulated || wanted.simulated,
    });
    await report(ctx, played, wanted.action, agent, outcome.feedback, outcome.info);
    return episodeOutputs(played);
  } finally {
    environment.close();
  }
};

/**
 * The episode as the environment now shows it (where it stands, what it offers, what it saved)
 * with what this node keeps of it, in the order of the episode's fields: a loop's `unchanged`
 * condition and a run's stored outputs compare the value as written.
 */
function shown(
  environment: EnvironmentEpisode,
  agent: string,
  kept: Pick<Episode, 'truncated' | 'reward' | 'totalReward' | 'simulated'>,
): Episode {
  const report = environment.report();
  const view = environment.observe(agent || undefined);
  return {
    ...report.standing,
    step: report.step,
    done: report.done,
    truncated: kept.truncated,
    observation: view.text,
    actions: view.actions ?? [],
    reward: kept.reward,
    totalReward: kept.totalReward,
    state: report.state,
    simulated: kept.simulated,
    saved: environment.save(),
  };
}

/**
 * The episode arriving at the `episode` input, checked, with the value as given; none in
 * round 1 or outside a loop.
 */
function carriedEpisode(
  ctx: NodeContext<SimulatorData>,
): { episode: Episode; given: unknown } | undefined {
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
  return { episode: parsed.data, given: value };
}

/** The step as a run event (the editor's episode view) and as a line of the loop's transcript. */
async function report(
  ctx: NodeContext<SimulatorData>,
  episode: Episode,
  action: string,
  agent: string,
  feedback: string[],
  info: Record<string, unknown> | undefined,
): Promise<void> {
  const { step, done, observation, actions, reward, totalReward, state, truncated, simulated } =
    episode;
  const standing = Object.fromEntries(
    Object.entries(episode).filter(([key]) => !(key in episodeValue.shape)),
  );
  ctx.report('step', {
    step: step - 1,
    commands: [{ command: action, by: agent || 'society' }],
    rejections: [],
    feedback: feedback.length > 0 ? feedback : [observation],
    completed: [],
    failed: [],
    state: {
      ...standing,
      step,
      maxSteps: ctx.data.maxSteps,
      reward,
      totalReward,
      actions,
      state,
      ...(info ? { info } : {}),
      ...(truncated ? { truncated: true } : {}),
    },
    attempts: 1,
    done,
    simulated,
  });
  const end = truncated ? ` · stopped at maxSteps ${ctx.data.maxSteps}` : done ? ' · done' : '';
  const said = feedback.join(' ') || observation;
  await ctx.message(
    `${simulated ? SIMULATED_PREFIX : ''}t=${step - 1}: ${action} → ${shortly(said)} (reward ${reward})${end}`,
  );
}

/** An observation as one line of a transcript. */
function shortly(text: string): string {
  return oneLine(text, 300);
}
