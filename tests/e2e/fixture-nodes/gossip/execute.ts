import type { NodeExecutor } from '../../../../app/node-sdk/define.ts';
import type { GossipData } from './spec.ts';

const TOPICS = ['weather', 'harvest', 'music', 'rumours'];

/** Plays the steps, reporting every chat, wave and figure as analytics events. */
export const execute: NodeExecutor<GossipData> = async (ctx) => {
  const { agents, quiet, areas, steps } = ctx.data;
  const first = ((ctx.loop?.round ?? 1) - 1) * steps + 1;
  const pick = <T>(list: readonly T[]) => list[Math.floor(ctx.random() * list.length)]!;
  let chats = 0;
  for (let x = first; x < first + steps; x++) {
    for (const from of agents) {
      const to = pick(agents.filter((a) => a !== from));
      const kind = quiet.includes(from) ? 'wave' : 'chat';
      if (kind === 'chat') chats++;
      ctx.report('interaction', { from, to, kind, x, text: `${from} ${kind}s at ${to}` });
    }
    ctx.report('series', {
      name: 'resources',
      label: 'Resources',
      unit: 'coins',
      x,
      values: Object.fromEntries(agents.map((a) => [a, Math.round(ctx.random() * 100) / 10])),
    });
    // Mood arrives one agent at a time: points at the same step are one point of the series.
    for (const a of agents)
      ctx.report('series', { name: 'mood', x, values: { [a]: ctx.random() } });
    ctx.report('series', {
      name: 'topic',
      label: 'Topic by area',
      x,
      values: Object.fromEntries(areas.map((area) => [area, pick(TOPICS)])),
    });
  }
  return { text: `${steps} steps, ${chats} chats` };
};
