import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import { chanceFromResources, resourcesOf } from './chance.ts';
import type { GateData } from './spec.ts';

export const execute: NodeExecutor<GateData> = async (ctx) => {
  const data = ctx.data;
  const key = data.key
    ? (await ctx.renderTemplate(data.key, { ...ctx.bindings, ...ctx.inputs }, 'key')).trim()
    : '';
  const resources =
    data.chance === 'resources' ? resourcesOf(ctx.inputs.resources, key, data.initial) : undefined;
  const p = resources === undefined ? data.probability : chanceFromResources(resources);
  if (!data.enabled) {
    return {
      passed: ctx.inputs.value,
      executed: true,
      outcome: { ...(key ? { key } : {}), value: ctx.inputs.value, executed: true, p: 1 },
    };
  }
  // One draw per execution, from the run's seed and this instance: a replayed or resumed run
  // draws the same number here, and the draw is in the outputs the run log keeps.
  const draw = ctx.random();
  const executed = draw < p;
  const value = ctx.inputs.value;
  return {
    passed: executed ? value : null,
    executed,
    outcome: {
      ...(key ? { key } : {}),
      value,
      executed,
      p: round(p),
      draw: round(draw),
      ...(resources === undefined ? {} : { resources }),
    },
  };
};

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
