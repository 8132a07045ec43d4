/**
 * CuisineWorld through the environment contract: an episode opens on a level with a number of
 * agents and a seed, takes commands in the kitchen's grammar (`goto_agent0_storage0`) and plays
 * them as one step. The world is deterministic for its seed, so a saved episode is its settings
 * and the commands of each step, replayed on resume.
 */
import { z } from 'zod';
import type { EnvironmentEpisode, EnvironmentType } from '../types.ts';
import { type CuisineWorldSettings, cuisineWorldSettings } from './episode-settings.ts';
import { cuisineWorldKind } from './kind.ts';

type Settings = CuisineWorldSettings;

const saved = z.object({ steps: z.array(z.array(z.string())) });

function episode(given: Settings, played: string[][] = []): EnvironmentEpisode {
  const level = cuisineWorldKind.level(given.level);
  if (!level) {
    throw new Error(
      `CuisineWorld has no level "${given.level}" (levels: ${cuisineWorldKind.levels().join(', ')})`,
    );
  }
  const world = cuisineWorldKind.create();
  const steps: string[][] = [];
  let queued = new Map<string, string>();
  let over = false;
  const reset = () =>
    world.reset({
      level,
      agents: given.agents,
      seed: given.seed,
      ...(given.maxSteps === undefined ? {} : { maxSteps: given.maxSteps }),
      ...(given.options ? { options: given.options } : {}),
    });
  const play = (commands: string[]) => {
    const result = world.step(commands);
    steps.push(commands);
    over = result.done;
    return result;
  };
  reset();
  for (const commands of played) play(commands);

  return {
    kind: 'cuisineworld',
    async start() {
      reset();
      steps.length = 0;
      queued = new Map();
      over = false;
      return { text: world.render() };
    },
    observe: () => ({ text: world.render() }),
    act(agent, action) {
      queued.set(agent, action);
    },
    async step() {
      const commands = [...queued.values()];
      queued = new Map();
      const result = play(commands);
      return { step: result.step, feedback: result.feedback, done: result.done };
    },
    done: () => over,
    report: () => ({
      kind: 'cuisineworld',
      step: world.metrics().steps,
      done: over,
      state: { ...world.snapshot(), metrics: world.metrics() },
    }),
    save: () => ({ steps: steps.map((s) => [...s]) }),
    close() {},
  };
}

export const cuisineWorldEnvironment: EnvironmentType<Settings> = {
  ...cuisineWorldSettings,
  open: (given) => episode(given),
  resume(given, value) {
    const parsed = saved.safeParse(value);
    if (!parsed.success) throw new Error('not a CuisineWorld episode this environment saved');
    return episode(given, parsed.data.steps);
  },
};
