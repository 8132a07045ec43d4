import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CuisineWorld } from './world.ts';

const DIR = fileURLToPath(new URL('../../../../shared/external-data/mindagent/', import.meta.url));
const hasTraces = existsSync(`${DIR}amt-traces.json`);
if (!hasTraces) console.warn(`skipping CuisineWorld trace replays: ${DIR} is absent`);

type TraceStep = {
  level: string;
  dishes: Array<{ name: string; lifetime: number }>;
  step: number;
  max_steps: number;
  at: Record<string, string>;
  hold: Record<string, string | null>;
  inside: Record<string, string | null>;
  occupy: string[];
  accomplished: string[];
  actions: string[];
};

/** Our state in the trace's terms. */
function asTraceState(w: CuisineWorld) {
  const s = w.view();
  return {
    dishes: s.orders.map((o) => ({ name: o.dish, lifetime: o.lifetime })),
    step: s.step,
    max_steps: w.config.maxSteps,
    at: Object.fromEntries(s.agents.map((a) => [a.id, a.at])),
    hold: Object.fromEntries(s.agents.map((a) => [a.id, a.hold])),
    inside: Object.fromEntries(
      s.places.map((p) => [p.id, p.contents.length > 0 ? p.contents.join('&') : null]),
    ),
    occupy: s.places.filter((p) => p.busy > 0).map((p) => p.id),
    accomplished: [...s.accomplished],
  };
}

describe.skipIf(!hasTraces)('CuisineWorld replays the recorded games of the public code', () => {
  const traces = hasTraces
    ? (
        JSON.parse(readFileSync(`${DIR}amt-traces.json`, 'utf8')) as {
          traces: Record<string, { steps: TraceStep[] }>;
        }
      ).traces
    : {};
  let matched = 0;
  let total = 0;

  for (const [name, trace] of Object.entries(traces)) {
    it(`${name}: every state after every joint action equals the recorded one`, () => {
      const steps = trace.steps;
      const first = steps[0]!;
      const lifetime = first.dishes[0]!.lifetime;
      // The observed arrivals: the opening order, then every dish that shows up at full lifetime.
      const arrivals = [first.dishes[0]!.name];
      let observed = 0;
      for (const s of steps.slice(1)) {
        for (const d of s.dishes) {
          if (d.lifetime !== lifetime) continue;
          arrivals.push(d.name);
          observed ||= s.step;
        }
      }
      // The recorded timing is the formula's at α 2.2 (level 1) and α 1.5 (level 2).
      const alpha = first.level === 'level_1' ? 2.2 : 1.5;
      const formula = new CuisineWorld({
        level: `trace_${first.level}`,
        agents: 1,
        seed: 0,
        options: { alpha },
      }).config;
      expect(Object.values(formula.lifetimes)).toContain(lifetime);
      if (observed) expect(observed).toBe(formula.interval);
      const w = new CuisineWorld({
        level: `trace_${first.level}`,
        agents: Object.keys(first.at).length,
        seed: 0,
        maxSteps: first.max_steps,
        options: { lifetime, interval: formula.interval, orderSource: arrivals },
      });

      for (const recorded of steps) {
        const { level: _level, actions, ...expected } = recorded;
        total++;
        expect(asTraceState(w), `${name} step ${recorded.step}`).toEqual(expected);
        matched++;
        const result = w.step(actions);
        expect(result.validation.rejections).toEqual([]);
      }
    });
  }

  it('matched all 46 recorded states', () => {
    expect({ matched, total }).toEqual({ matched: 46, total: 46 });
  });
});
