/** CuisineWorld as an environment kind: what the registry, dispatchers and the CLI use. */
import { type DemoStep, demonstration } from '../dispatch.ts';
import type { EnvironmentKind } from '../registry.ts';
import type { Environment } from '../types.ts';
import { greedyCommands } from './baseline.ts';
import { LEVELS } from './data.ts';
import { checkLevel, findLevel, getLevel } from './levels.ts';
import { commandsFromPrompt } from './prompt-policy.ts';
import { COMMAND_PATTERN, CuisineWorld } from './world.ts';

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
  level: (name) => {
    const found = findLevel(name);
    return found?.source === 'final' ? found.id : undefined;
  },
  describeLevel(id) {
    const level = getLevel(id);
    const kitchen = Object.entries(level.kitchen)
      .map(([tool, n]) => `${n}× ${tool}`)
      .join(', ');
    return `${level.title}, ${level.class ?? 'in no paper table'}; kitchen: ${kitchen}; dishes: ${level.dishes.join(', ')}`;
  },
  checkLevel: (level) => checkLevel(getLevel(level)).map((issue) => issue.message),
  briefing(env) {
    const world = asWorld(env);
    const briefing = world.briefing();
    // A dish the kitchen cannot make is said in the prompt too, not only to the person.
    const missing = checkLevel(world.config.level)
      .filter((issue) => issue.kind === 'missing-tool')
      .map((issue) => `Note: ${issue.message}.`);
    return missing.length > 0
      ? { ...briefing, knowledge: `${briefing.knowledge}\n${missing.join('\n')}` }
      : briefing;
  },
  commandPattern: COMMAND_PATTERN,
  // Agents a person plays are left out of the plan, so no controlled agent waits on them.
  greedy: (env, agents) => greedyCommands(asWorld(env), agents),
  commandsFromPrompt,
  demonstrations(level, agents, count, steps) {
    const demos: DemoStep[][] = [];
    for (const [i, demoLevel] of demoLevels(level).slice(0, count).entries()) {
      const world = new CuisineWorld();
      world.reset({ level: demoLevel, agents, seed: `demo:${i}`, maxSteps: Math.max(steps, 1) });
      const demo = demonstration(world, (env) => greedyCommands(asWorld(env)), steps);
      // The demo's own recipes come with it, as the paper's demo dish's recipe does.
      if (demo[0]) {
        const recipes = world
          .briefing()
          .knowledge.split('\n')
          .map((line) => `  ${line}`)
          .join('\n');
        demo[0] = {
          ...demo[0],
          state: `Example game on ${demoLevel}, whose recipes are:\n${recipes}\n\n${demo[0].state}`,
        };
      }
      demos.push(demo);
    }
    return demos;
  },
};
