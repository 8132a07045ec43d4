import { openEnvironment } from '../../app/environments/episodes.ts';
import { environmentKind } from '../../app/environments/registry.ts';
import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { EnvironmentData } from './spec.ts';

export const execute: NodeExecutor<EnvironmentData> = async (ctx) => {
  const { kind, agents, seed, maxSteps, alpha, orderCap, runner } = ctx.data;
  // What a dispatcher needs beyond the contract: level names, a level's problems.
  const world = await environmentKind(kind);
  const level = world.level(ctx.data.level);
  if (!level) {
    throw new Error(
      `${world.title} has no level "${ctx.data.level}" (levels: ${world.levels().join(', ')})`,
    );
  }
  // The world as it starts, through the contract every environment meets.
  const episode = openEnvironment(kind, {
    level,
    agents,
    seed,
    maxSteps,
    options: { alpha, orderCap, runner },
  });
  const start = await episode.start();
  episode.close();
  const warnings = world.checkLevel(level);
  for (const warning of warnings) await ctx.message(`${level}: ${warning}`);
  return {
    world: { kind, level, agents, seed, maxSteps, alpha, orderCap, runner, warnings },
    state: start.text,
  };
};
