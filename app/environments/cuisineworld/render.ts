/** How the world shows itself: the state as predicates in text, and as a plain-JSON snapshot. */
import type { EpisodeMetrics } from '../types.ts';
import type { WorldConfig } from './config.ts';
import { names } from './rules.ts';
import type { WorldState } from './state.ts';

/** The state as the paper's predicates (`at`, `hold`, `inside`, `occupy`), in our layout. */
export function renderWorld(s: WorldState, c: WorldConfig): string {
  const lines: string[] = [];
  const cls = c.level.class ? `, ${c.level.class}` : '';
  lines.push(`level: ${c.level.id} (${c.level.title}${cls})`);
  lines.push(`step: ${s.step} of ${c.maxSteps}`);
  lines.push('orders (dish: steps left), most urgent first:');
  if (s.orders.length === 0) lines.push('  none open');
  for (const o of s.orders) lines.push(`  ${o.dish}: ${o.lifetime}`);
  lines.push('agents:');
  for (const a of s.agents) {
    lines.push(`  at(${a.id}, ${a.at})`);
    lines.push(`  hold(${a.id}, ${a.hold ?? 'nothing'})`);
    if (a.busy > 0) lines.push(`  occupy(${a.id})`);
  }
  lines.push('kitchen:');
  for (const p of s.places) {
    lines.push(`  inside(${p.id}, ${names(p.contents)})`);
    if (p.busy > 0) lines.push(`  occupy(${p.id})`);
  }
  lines.push(`accomplished: ${s.accomplished.length > 0 ? s.accomplished.join(', ') : 'none yet'}`);
  return lines.join('\n');
}

/** The state, its timing and its figures as plain JSON (what a run's events carry). */
export function worldSnapshot(
  kind: string,
  s: WorldState,
  c: WorldConfig,
  metrics: EpisodeMetrics,
): Record<string, unknown> {
  return {
    kind,
    level: c.level.id,
    levelClass: c.level.class,
    step: s.step,
    maxSteps: c.maxSteps,
    done: s.done,
    orders: s.orders.map((o) => ({
      id: o.id,
      dish: o.dish,
      lifetime: o.lifetime,
      arrivedAt: o.arrivedAt,
    })),
    agents: s.agents.map((a) => ({ id: a.id, at: a.at, hold: a.hold, occupied: a.busy > 0 })),
    locations: s.places.map((p) => ({
      id: p.id,
      tool: p.tool,
      contents: [...p.contents],
      occupied: p.busy > 0,
      busy: p.busy,
      cooked: p.cooked,
    })),
    accomplished: [...s.accomplished],
    failed: [...s.expired],
    timing: {
      alpha: c.alpha,
      interval: c.interval,
      lifetimes: { ...c.lifetimes },
      orderCap: c.orderCap,
    },
    metrics: { ...metrics, noops: s.tally.noops, failedSteps: s.tally.failedSteps },
  };
}
