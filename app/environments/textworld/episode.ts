/**
 * A text world through the environment contract: an episode opens on a world (a built-in one's
 * name, or a world file's content), each agent acts in words (`go to the canteen`), and a step
 * plays the script and every agent's turn. Its state is plain JSON, saved and restored as is.
 */
import { z } from 'zod';
import type { EnvironmentEpisode, EnvironmentType } from '../types.ts';
import { builtinWorld } from './builtin.ts';
import { type TextWorldSettings, textWorldSettings } from './episode-settings.ts';
import { TextWorld } from './world.ts';

type Settings = TextWorldSettings;

const saved = z.object({ state: z.unknown() });

function specOf(world: Settings['world']): unknown {
  if (typeof world !== 'string') return world;
  const spec = builtinWorld(world);
  if (!spec) throw new Error(`there is no built-in world "${world}"`);
  return spec;
}

/** An episode of the world `fresh` makes, at `now` (a restored one) or where it starts. */
function episode(
  fresh: () => TextWorld,
  maxSteps: number | undefined,
  now: TextWorld = fresh(),
): EnvironmentEpisode {
  let world = now;
  let queued = new Map<string, string>();
  const view = (agent?: string) =>
    agent === undefined
      ? {
          text: world
            .agents()
            .map((a) => `${a}:\n${world.observe(a)}`)
            .join('\n\n'),
        }
      : { text: world.observe(agent), actions: world.actionSpace(agent) };
  const over = () => maxSteps !== undefined && world.stepsPlayed() >= maxSteps;

  return {
    kind: 'textworld',
    async start() {
      world = fresh();
      queued = new Map();
      return view();
    },
    observe: view,
    act(agent, action) {
      queued.set(agent, action);
    },
    async step() {
      const played = world.step([...queued].map(([agent, action]) => ({ agent, action })));
      queued = new Map();
      const feedback = [...played.script, ...played.results]
        .filter((r) => r.given !== null)
        .map((r) => `${r.agent}: ${r.feedback}`);
      return { step: played.step, feedback, done: over() };
    },
    done: over,
    report: () => ({
      kind: 'textworld',
      step: world.stepsPlayed(),
      done: over(),
      state: world.state() as unknown as Record<string, unknown>,
    }),
    save: () => ({ state: world.state() }),
    close() {},
  };
}

export const textWorldEnvironment: EnvironmentType<Settings> = {
  ...textWorldSettings,
  open: (given) =>
    episode(
      () => TextWorld.create(specOf(given.world), { seed: given.seed, turnOrder: given.turnOrder }),
      given.maxSteps,
    ),
  resume(given, value) {
    const parsed = saved.safeParse(value);
    if (!parsed.success) throw new Error('not a text-world episode this environment saved');
    return episode(
      () => TextWorld.create(specOf(given.world), { seed: given.seed, turnOrder: given.turnOrder }),
      given.maxSteps,
      TextWorld.restore(parsed.data.state),
    );
  },
};
