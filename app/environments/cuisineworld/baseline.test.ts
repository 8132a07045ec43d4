import { describe, expect, it } from 'vitest';
import { greedyCommands } from './baseline.ts';
import { LEVELS } from './data.ts';
import { CuisineWorld } from './world.ts';

/** Plays a whole episode with the greedy dispatcher; counts refusals along the way. */
function playGreedy(level: string, agents: number, tau: 1 | 2 | 3 | 4 | 5, seed = 1) {
  const w = new CuisineWorld({ level, agents, seed, options: { tau } });
  let refusals = 0;
  let shape = true;
  while (true) {
    const commands = greedyCommands(w);
    shape &&= commands.length === agents && commands.every((c, i) => c.includes(`_agent${i}`));
    refusals += w.validate(commands).rejections.length;
    const result = w.step(commands);
    refusals += result.validation.rejections.length;
    if (result.done) break;
  }
  return { refusals, shape, metrics: w.metrics() };
}

const finals = LEVELS.filter((l) => l.source === 'final');

describe('the greedy CuisineWorld dispatcher', () => {
  it('gives one valid command per agent, in agent order, over whole episodes at every level', () => {
    const completed: Record<string, number> = {};
    for (const level of finals) {
      for (const agents of [2, 3, 4]) {
        for (const tau of [1, 2, 3, 4, 5] as const) {
          const run = playGreedy(level.id, agents, tau);
          expect(run.refusals, `${level.id} ${agents} agents τ${tau}`).toBe(0);
          expect(run.shape).toBe(true);
          expect(run.metrics.steps).toBe(60);
          completed[`${level.title}/${agents}`] =
            (completed[`${level.title}/${agents}`] ?? 0) + run.metrics.completed;
        }
      }
    }
    // Every level gets orders done over the five τ, whatever the number of agents.
    for (const [key, count] of Object.entries(completed)) expect(count, key).toBeGreaterThan(0);
  });

  it('completes a fair share of orders on L0 and L3 with two agents at τ1 (the most hurried)', () => {
    // L0: one blender, an order every 3 steps living 8; L3: sushi, every 6 steps living 13.
    const l0 = playGreedy('level_0', 2, 1).metrics;
    const l3 = playGreedy('level_3', 2, 1).metrics;
    expect(l0.completed).toBeGreaterThanOrEqual(5);
    expect(l0.completed + l0.failed + l0.open).toBe(21);
    expect(l3.completed).toBeGreaterThanOrEqual(3);
    expect(l3.completed + l3.failed + l3.open).toBe(11);
  });

  it('does better with more agents where the kitchen has room for them (L7 soups at τ1)', () => {
    const two = playGreedy('level_7', 2, 1).metrics.completed;
    const four = playGreedy('level_7', 4, 1).metrics.completed;
    expect(four).toBeGreaterThan(two);
  });

  it('leaves orders it cannot make alone (L12’s French fries need a fryer)', () => {
    const w = new CuisineWorld({
      level: 'level_12',
      agents: 2,
      seed: 1,
      options: { orderSource: ['frenchFries'], interval: 0, lifetime: 20 },
    });
    expect(greedyCommands(w)).toEqual(['noop_agent0', 'noop_agent1']);
  });

  it('plays only the agents it is given, leaving the others to people', () => {
    const w = new CuisineWorld({ level: 'level_3', agents: 3, seed: 1 });
    const commands = greedyCommands(w, ['agent0', 'agent2']);
    expect(commands.map((c) => /_(agent\d+)/.exec(c)?.[1])).toEqual(['agent0', 'agent2']);
    expect(w.validate([...commands, 'noop_agent1']).ok).toBe(true);
  });

  it('is a pure function of the world: same state, same commands, nothing changed', () => {
    const w = new CuisineWorld({ level: 'level_5', agents: 3, seed: 2 });
    for (let i = 0; i < 10; i++) w.step(greedyCommands(w));
    const before = w.snapshot();
    const first = greedyCommands(w);
    expect(greedyCommands(w.clone())).toEqual(first);
    expect(w.snapshot()).toEqual(before);
  });
});
