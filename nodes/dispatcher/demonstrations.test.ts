/**
 * The dispatcher's worked demonstration, by default as long as the paper's: MindAgent's 2-, 3-
 * and 4-agent demonstrations are 10-step traces in which a dish is served. Ours are played by
 * the greedy rules on another level of our simulator, never copied from the paper's prompts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cuisineWorldKind } from '../../app/environments/cuisineworld/kind.ts';
import { dispatcherData } from './spec.ts';

const TRACES = new URL('../../../shared/external-data/mindagent/amt-traces.json', import.meta.url);
const hasTraces = existsSync(TRACES);
if (!hasTraces)
  console.warn(`skipping the comparison with the paper's demos: ${TRACES.pathname} is absent`);

const steps = dispatcherData.parse({}).demoSteps;

describe("the dispatcher's default demonstration", () => {
  for (const [level, agents] of [
    ['level_3', 2],
    ['level_0', 3],
    ['level_5', 4],
  ] as const) {
    it(`${agents} agents on ${level}: a whole dish is served within it, on another level`, () => {
      const [demo] = cuisineWorldKind.demonstrations(level, agents, 1, steps);
      expect(demo).toHaveLength(steps);
      expect(demo![0]!.state).toMatch(/^Example game on level_\d+/);
      expect(demo![0]!.state).not.toContain(`Example game on ${level},`);
      expect(
        demo!.some((s) => s.commands.some((c) => /^put_agent\d+_servingtable0$/.test(c))),
      ).toBe(true);
      expect(demo!.at(-1)!.state).toMatch(/^accomplished: \w+/m);
      // Table 8's short demonstration is the same game's first 2 steps (its length is shown).
      const short = cuisineWorldKind.demonstrations(level, agents, 1, 2)[0]!;
      expect(short.map((s) => s.commands)).toEqual(demo!.slice(0, 2).map((s) => s.commands));
      expect(short[0]!.state).toContain('step: 0 of 2');
    });
  }

  it.skipIf(!hasTraces)(
    "is as long as the paper's demonstration for the same number of agents",
    () => {
      const traces = JSON.parse(readFileSync(TRACES, 'utf8')).traces as Record<
        string,
        { num_steps: number }
      >;
      for (const agents of [2, 3, 4]) {
        const name = Object.keys(traces).find(
          (n) => n.startsWith(`prompt_${agents}agent_`) && !n.includes('short'),
        );
        expect(traces[name!]!.num_steps, name).toBe(steps);
      }
      expect(traces['prompt_2agent_level1_short.txt']!.num_steps).toBe(2);
    },
  );
});
