/**
 * A simulator outside the product through the environment contract: `start` is the protocol's
 * reset, a step sends the one queued action (docs/simulator-protocol.md), and the episode saved
 * between rounds is the session the simulator named and its last answer.
 */
import { z } from 'zod';
import type { EnvironmentContext, EnvironmentEpisode, EnvironmentType } from '../types.ts';
import { simulatorClient } from './client.ts';
import { type ExternalSettings, externalSettings } from './episode-settings.ts';

type Settings = ExternalSettings;

const state = z.object({
  session: z.string().min(1),
  step: z.number().int().min(0),
  done: z.boolean(),
  observation: z.string(),
  actions: z.array(z.string()),
  state: z.record(z.string(), z.unknown()),
});
type State = z.infer<typeof state>;

// An episode value from before `save` was carried is the episode itself: read alike.
const saved = z.union([
  z.object({ episode: state.nullable() }),
  state.transform((episode) => ({ episode })),
]);

function episode(
  given: Settings,
  context: EnvironmentContext,
  carried: State | null = null,
): EnvironmentEpisode {
  const client = simulatorClient(given.url, {
    timeoutMs: given.timeoutMs,
    ...(context.signal ? { signal: context.signal } : {}),
    allowedOrigins: context.allowedOrigins ?? new Set(),
  });
  let now = carried;
  let queued: { agent: string; action: string } | undefined;
  const started = (): State => {
    if (!now) throw new Error(`simulator ${client.shownUrl}: the episode has not started`);
    return now;
  };
  const view = () => {
    const { observation, actions } = started();
    return { text: observation, actions };
  };

  return {
    kind: 'external',
    async start() {
      const answer = await client.reset({
        seed: given.seed,
        ...(Object.keys(given.options).length > 0 ? { options: given.options } : {}),
      });
      now = {
        session: answer.session,
        step: 0,
        done: answer.done,
        observation: answer.observation,
        actions: answer.actions ?? [],
        state: answer.state ?? {},
      };
      queued = undefined;
      return view();
    },
    observe: view,
    act(agent, action) {
      // The protocol plays one action a step.
      if (queued && queued.agent !== agent) {
        throw new Error(
          `simulator ${client.shownUrl} plays one action a step: ${queued.agent} has already acted`,
        );
      }
      queued = { agent, action };
    },
    async step() {
      const episode = started();
      const wanted = queued;
      queued = undefined;
      if (!wanted) throw new Error(`simulator ${client.shownUrl}: no action to play`);
      const answer = await client.step({
        session: episode.session,
        action: wanted.action,
        step: episode.step + 1,
        ...(wanted.agent ? { agent: wanted.agent } : {}),
      });
      const step = episode.step + 1;
      const truncated = !answer.done && step >= given.maxSteps;
      now = {
        session: episode.session,
        step,
        done: answer.done || truncated,
        observation: answer.observation,
        actions: answer.actions ?? [],
        state: answer.state ?? {},
      };
      return {
        step,
        feedback: [answer.observation],
        ...(answer.reward === undefined ? {} : { reward: answer.reward }),
        done: now.done,
        ...(truncated ? { truncated } : {}),
        ...(answer.info ? { info: answer.info } : {}),
      };
    },
    done: () => now?.done ?? false,
    report: () => ({
      kind: 'external',
      step: now?.step ?? 0,
      done: now?.done ?? false,
      state: now?.state ?? {},
      standing: { url: client.shownUrl, ...(now ? { session: now.session } : {}) },
    }),
    save: () => ({ episode: now }),
    close: () => client.close(),
  };
}

export const externalEnvironment: EnvironmentType<Settings> = {
  ...externalSettings,
  open: (given, context) => episode(given, context),
  resume(given, value, context) {
    const parsed = saved.safeParse(value);
    if (!parsed.success) throw new Error('not a simulator episode this environment saved');
    return episode(given, context, parsed.data.episode);
  },
};
