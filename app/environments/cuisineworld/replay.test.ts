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

describe.skipIf(!hasTraces)('the paper runner counts turns as MindAgent’s runner does', () => {
  const traces = hasTraces
    ? (
        JSON.parse(readFileSync(`${DIR}amt-traces.json`, 'utf8')) as {
          traces: Record<string, { steps: TraceStep[] }>;
        }
      ).traces
    : {};

  for (const [name, trace] of Object.entries(traces)) {
    it(`${name}: turns with no readable command use up the budget but never move the game`, () => {
      const steps = trace.steps;
      const first = steps[0]!;
      const alpha = first.level === 'level_1' ? 2.2 : 1.5;
      const formula = new CuisineWorld({
        level: `trace_${first.level}`,
        agents: 1,
        seed: 0,
        options: { alpha },
      }).config;
      const lifetime = first.dishes[0]!.lifetime;
      const arrivals = [first.dishes[0]!.name];
      for (const s of steps.slice(1))
        for (const d of s.dishes) if (d.lifetime === lifetime) arrivals.push(d.name);
      // A turn budget just long enough for the recorded steps and the unreadable turns.
      const unreadable = Math.ceil(steps.length / 3);
      const w = new CuisineWorld({
        level: `trace_${first.level}`,
        agents: Object.keys(first.at).length,
        seed: 0,
        maxSteps: steps.length + unreadable,
        options: {
          lifetime,
          interval: formula.interval,
          orderSource: arrivals,
          runner: 'paper',
        },
      });
      let inserted = 0;
      steps.forEach((recorded, i) => {
        // Every third turn first comes back with nothing readable: the game stays put.
        if (i % 3 === 0) {
          const before = asTraceState(w);
          const skipped = w.step([]);
          inserted++;
          expect(skipped.step).toBe(recorded.step);
          expect(asTraceState(w)).toEqual(before);
        }
        // The budget here is in turns, not the trace's game length.
        const { level: _level, actions, max_steps: _max, ...expected } = recorded;
        const { max_steps: _ours, ...state } = asTraceState(w);
        expect(state, `${name} step ${recorded.step}`).toEqual(expected);
        expect(w.metrics().turns).toBe(recorded.step + inserted);
        w.step(actions);
      });
      // The game played the trace's steps; the budget counted those and the unreadable turns.
      expect(w.metrics().steps).toBe(steps.length);
      expect(w.metrics().turns).toBe(steps.length + unreadable);
      expect(w.view().done).toBe(true);
      const last = steps.at(-1)!;
      expect(w.view().accomplished.slice(0, last.accomplished.length)).toEqual(last.accomplished);
    });
  }
});

describe('expired orders under each runner', () => {
  /** Two orders that run out in the same step (lifetimes 3 and 2, arriving a step apart). */
  const expireTogether = (runner: 'ours' | 'paper') => {
    const w = new CuisineWorld({
      level: 'level_1',
      agents: 1,
      seed: 0,
      options: {
        interval: 1,
        orderCap: 2,
        lifetime: { salmonMeatcake: 3, lambMeatcake: 2 },
        orderSource: ['salmonMeatcake', 'lambMeatcake'],
        runner,
      },
    });
    const failedPerStep: string[][] = [];
    for (let i = 0; i < 4; i++) failedPerStep.push(w.step(['noop_agent0']).failed);
    return { failedPerStep, metrics: w.metrics() };
  };

  it('ours counts both; the paper runner counts one, as its engine does', () => {
    const ours = expireTogether('ours');
    const paper = expireTogether('paper');
    // Both worlds saw the same two expiries in step 3.
    expect(ours.failedPerStep[3]).toEqual(['lambMeatcake', 'salmonMeatcake']);
    expect(paper.failedPerStep).toEqual(ours.failedPerStep);
    expect(ours.metrics.failed).toBe(2);
    expect(paper.metrics.failed).toBe(1);
  });
});
