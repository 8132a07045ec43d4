import { environmentKind } from '../../app/environments/registry.ts';
import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { EnvironmentData } from './spec.ts';

export const execute: NodeExecutor<EnvironmentData> = async (ctx) => {
  const { kind, agents, seed, maxSteps, alpha, orderCap } = ctx.data;
  const world = await environmentKind(kind);
  const level = world.level(ctx.data.level);
  if (!level) {
    throw new Error(
      `${world.title} has no level "${ctx.data.level}" (levels: ${world.levels().join(', ')})`,
    );
  }
  const env = world.create();
  env.reset({ level, agents, seed, maxSteps, options: { alpha, orderCap } });
  const warnings = world.checkLevel(level);
  for (const warning of warnings) await ctx.message(`${level}: ${warning}`);
  return {
    world: { kind, level, agents, seed, maxSteps, alpha, orderCap, warnings },
    state: env.render(),
  };
};
