/** CuisineWorld as an environment kind: what the registry, dispatchers and the CLI use. */
import { type DemoStep, demonstration } from '../dispatch.ts';
import type { EnvironmentKind } from '../registry.ts';
import type { Environment } from '../types.ts';
import { greedyCommands } from './baseline.ts';
import { LEVELS } from './data.ts';
import { checkLevel, getLevel } from './levels.ts';
import { CuisineWorld } from './world.ts';

function asWorld(env: Environment): CuisineWorld {
  if (!(env instanceof CuisineWorld)) throw new Error(`not a CuisineWorld: ${env.kind}`);
  return env;
}

/** The level a demonstration is played on: another one, as the paper's demo is another dish. */
function demoLevels(level: string): string[] {
  const played = getLevel(level);
  return LEVELS.filter(
    (l) =>
      l.source === 'final' &&
      l.id !== level &&
      l.class !== null &&
      l.dishes.some((d) => !played.dishes.includes(d)),
  ).map((l) => l.id);
}

export const cuisineWorldKind: EnvironmentKind = {
  kind: 'cuisineworld',
  title: 'CuisineWorld',
  create: () => new CuisineWorld(),
  levels: () => LEVELS.filter((l) => l.source === 'final').map((l) => l.id),
  checkLevel: (level) => checkLevel(getLevel(level)).map((issue) => issue.message),
  briefing: (env) => asWorld(env).briefing(),
  // Any verb-shaped word is read, not only the five actions, so an unknown verb reaches the
  // vocabulary stage and is refused with a reason instead of vanishing silently.
  commandPattern: /\b[A-Za-z]+_agent\d+(?:_[A-Za-z0-9]+)*/g,
  // Agents a person plays are left out of the plan, so no controlled agent waits on them.
  greedy: (env, agents) => greedyCommands(asWorld(env), agents),
  demonstrations(level, agents, count, steps) {
    const demos: DemoStep[][] = [];
    for (const [i, demoLevel] of demoLevels(level).slice(0, count).entries()) {
      const world = new CuisineWorld();
      world.reset({ level: demoLevel, agents, seed: `demo:${i}`, maxSteps: Math.max(steps, 1) });
      demos.push(demonstration(world, (env) => greedyCommands(asWorld(env)), steps));
    }
    return demos;
  },
};
