import { describe, expect, it } from 'vitest';
import { place, play, world } from './world.test-helper.ts';
import { CuisineWorld } from './world.ts';

describe('CuisineWorld orders', () => {
  it('adds an order every interval until the cap is reached', () => {
    const w = new CuisineWorld({
      level: 'level_1',
      agents: 2,
      seed: 3,
      options: { interval: 2, lifetime: 40, orderCap: 6 },
    });
    const counts: number[] = [w.view().orders.length];
    for (let i = 0; i < 14; i++) {
      w.step(['noop_agent0']);
      counts.push(w.view().orders.length);
    }
    expect(counts).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6, 6, 6]);
    expect(w.view().orders.map((o) => o.arrivedAt)).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it('lets an order expire when a step starts with lifetime 0', () => {
    const w = world('level_0', 2, { lifetime: 2 });
    expect(w.view().orders[0]!.lifetime).toBe(2);
    expect(w.step(['noop_agent0']).failed).toEqual([]);
    expect(w.step(['noop_agent0']).failed).toEqual([]);
    expect(w.view().orders[0]!.lifetime).toBe(0);
    expect(w.render()).toContain('salmonMeatcake: 0');
    const result = w.step(['noop_agent0']);
    expect(result.failed).toEqual(['salmonMeatcake']);
    expect(w.metrics()).toMatchObject({ failed: 1, open: 0 });
  });

  it('uses the timing formula by default (L0 at α 1.0: every 3 steps, lifetime 8)', () => {
    const w = new CuisineWorld({ level: 'level_0', agents: 2, seed: 1 });
    const arrivals: number[] = [];
    const failures: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = w.step(['noop_agent0']);
      if (w.view().orders.some((o) => o.arrivedAt === r.step)) arrivals.push(r.step);
      if (r.failed.length > 0) failures.push(r.step);
    }
    expect(arrivals).toEqual([3, 6, 9, 12]);
    // The first order (lifetime 8) fails in the step that starts with it at 0: step 8 → 9.
    expect(failures).toEqual([9, 12]);
  });

  /** trace_level_1: agent0 and agent1 make a porkMeatcake and agent0 stands at the table with it. */
  function porkToTable(w: CuisineWorld) {
    play(
      w,
      ['goto_agent0_storage0', 'goto_agent1_storage0'],
      ['get_agent0_pork_storage0', 'get_agent1_flour_storage0'],
      ['goto_agent0_blender0', 'goto_agent1_blender0'],
      ['put_agent0_blender0', 'put_agent1_blender0'],
      ['activate_agent0_blender0'],
      ['noop_agent0'],
      ['get_agent0_blender0'],
      ['goto_agent0_servingtable0'],
    );
  }

  it('completes the most urgent of several matching orders', () => {
    const w = new CuisineWorld({
      level: 'trace_level_1',
      agents: 2,
      seed: 1,
      options: {
        lifetime: 30,
        interval: 1,
        orderCap: 3,
        orderSource: ['beefMeatcake', 'porkMeatcake', 'porkMeatcake'],
      },
    });
    porkToTable(w);
    expect(w.view().orders.map((o) => `${o.dish}@${o.arrivedAt}`)).toEqual([
      'beefMeatcake@0',
      'porkMeatcake@1',
      'porkMeatcake@2',
    ]);
    const served = w.step(['put_agent0_servingtable0']);
    expect(served.completed).toEqual(['porkMeatcake']);
    const left = w.view().orders.filter((o) => o.arrivedAt <= 2);
    expect(left.map((o) => `${o.dish}@${o.arrivedAt}`)).toEqual([
      'beefMeatcake@0',
      'porkMeatcake@2',
    ]);
    expect(place(w, 'servingtable0').contents).toEqual([]);
  });

  it('keeps a served dish nobody has ordered on the table', () => {
    const w = new CuisineWorld({
      level: 'trace_level_1',
      agents: 2,
      seed: 1,
      options: { lifetime: 30, interval: 0, orderSource: ['beefMeatcake'] },
    });
    porkToTable(w);
    const served = w.step(['put_agent0_servingtable0']);
    expect(served.completed).toEqual([]);
    expect(place(w, 'servingtable0').contents).toEqual(['porkMeatcake']);
    expect(w.view().orders.map((o) => o.dish)).toEqual(['beefMeatcake']);
  });

  it('draws orders from a function source, which can use the seeded draw', () => {
    const seen: number[] = [];
    const w = new CuisineWorld({
      level: 'level_1',
      agents: 2,
      seed: 5,
      options: {
        interval: 1,
        lifetime: 50,
        orderSource: ({ step, dishes }: { step: number; dishes: readonly string[] }) => {
          seen.push(step);
          return dishes[step % dishes.length]!;
        },
      },
    });
    w.step(['noop_agent0']);
    w.step(['noop_agent0']);
    expect(seen).toEqual([0, 1, 2]);
    expect(
      w
        .view()
        .orders.map((o) => o.dish)
        .sort(),
    ).toEqual(['salmonMeatcake', 'lambMeatcake', 'lobsterMeatcake'].sort());
  });
});
