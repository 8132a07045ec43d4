import { describe, expect, it } from 'vitest';
import { greedyCommands } from './baseline.ts';
import { at, loadBlender, place, play, world } from './world.test-helper.ts';
import { CuisineWorld } from './world.ts';

describe('CuisineWorld episodes', () => {
  it('starts everyone at the serving table with one order open', () => {
    const w = new CuisineWorld({ level: 'level_3', agents: 3, seed: 1 });
    const s = w.view();
    expect(w.kind).toBe('cuisineworld');
    expect(w.agents()).toEqual(['agent0', 'agent1', 'agent2']);
    expect(s.agents.every((a) => a.at === 'servingtable0' && a.hold === null)).toBe(true);
    expect(s.orders).toHaveLength(1);
    expect(['salmonSushi', 'tunaSushi']).toContain(s.orders[0]!.dish);
    expect(s.orders[0]!.lifetime).toBe(13);
    expect(w.config.maxSteps).toBe(60);
    expect(w.config.interval).toBe(6);
  });

  it('cooks and serves a dish: the order completes and the dish is used up', () => {
    const w = world('level_0', 2, { orderSource: ['salmonMeatcake'] });
    loadBlender(w);
    expect(place(w, 'blender0').contents).toEqual(['salmon', 'flour']);
    play(w, ['activate_agent0_blender0', 'noop_agent1']);
    // The product is there at once, but the blender stays occupied for one more step.
    expect(place(w, 'blender0')).toMatchObject({ contents: ['salmonMeatcake'], busy: 1 });
    expect(w.render()).toContain('occupy(blender0)');
    play(w, ['noop_agent0', 'noop_agent1']);
    play(w, ['get_agent0_blender0', 'noop_agent1']);
    play(w, ['goto_agent0_servingtable0', 'noop_agent1']);
    const result = w.step(['put_agent0_servingtable0', 'noop_agent1']);
    expect(result.completed).toEqual(['salmonMeatcake']);
    expect(place(w, 'servingtable0').contents).toEqual([]);
    expect(w.view().accomplished).toEqual(['salmonMeatcake']);
    expect(w.metrics()).toMatchObject({ steps: 9, completed: 1, failed: 0, open: 0 });
  });

  it('runs commands in order, so one agent can use what another just did', () => {
    const w = world('level_0');
    play(
      w,
      ['goto_agent0_storage0', 'goto_agent1_storage0'],
      ['get_agent0_salmon_storage0', 'get_agent1_flour_storage0'],
      ['goto_agent0_blender0', 'goto_agent1_blender0'],
      ['put_agent0_blender0', 'noop_agent1'],
    );
    // agent1 puts the flour in, then agent0 (listed second) switches the blender on.
    play(w, ['put_agent1_blender0', 'activate_agent0_blender0']);
    expect(place(w, 'blender0').contents).toEqual(['salmonMeatcake']);
    // In the other order the activation comes first and is refused.
    const v = world('level_0');
    play(
      v,
      ['goto_agent0_blender0', 'goto_agent1_storage0'],
      ['noop_agent0', 'get_agent1_salmon_storage0'],
    );
    play(v, ['noop_agent0', 'goto_agent1_blender0']);
    expect(
      v.validate(['activate_agent0_blender0', 'put_agent1_blender0']).rejections[0]?.reason,
    ).toBe('empty-location');
    expect(v.validate(['put_agent1_blender0', 'noop_agent0']).ok).toBe(true);
  });

  it('ends after maxSteps and then refuses to go on', () => {
    const w = world('level_0', 2, {}, 3);
    expect(w.step(['noop_agent0']).done).toBe(false);
    expect(w.step(['noop_agent0']).done).toBe(false);
    expect(w.step(['noop_agent0']).done).toBe(true);
    const after = w.step(['goto_agent0_storage0']);
    expect(after).toMatchObject({ step: 3, done: true, feedback: ['the episode is over'] });
    expect(at(w, 'agent0').at).toBe('servingtable0');
  });

  it('checks its options', () => {
    expect(() => new CuisineWorld({ level: 'level_0', agents: 0, seed: 1 })).toThrow(/agents/);
    expect(() => new CuisineWorld({ level: 'level_99', agents: 2, seed: 1 })).toThrow(/unknown/);
    expect(() => world('level_0', 2, { alpha: -1 })).toThrow(/alpha/);
    expect(() => world('level_0', 2, { lifetime: { tunaSushi: 4 } })).toThrow(/not a dish/);
    expect(() => world('level_0', 2, { orderSource: ['tunaSushi'] })).toThrow(
      /not a dish of level_0/,
    );
    expect(
      new CuisineWorld({ level: 'L5', agents: 2, seed: 1, options: { tau: 3 } }).config.alpha,
    ).toBe(2.0);
  });
});

describe('CuisineWorld determinism', () => {
  function episode(seed: number, level = 'level_1') {
    const w = new CuisineWorld({ level, agents: 3, seed });
    const log: unknown[] = [];
    while (true) {
      const r = w.step(greedyCommands(w));
      log.push(r, w.snapshot());
      if (r.done) break;
    }
    return { log, render: w.render(), metrics: w.metrics() };
  }

  it('gives the same episode for the same seed, and other orders for another seed', () => {
    const a = episode(11);
    expect(episode(11)).toEqual(a);
    const dishes = (e: ReturnType<typeof episode>) =>
      JSON.stringify(
        e.log.filter((_, i) => i % 2 === 1).map((s) => (s as { orders: unknown }).orders),
      );
    expect(dishes(episode(12))).not.toBe(dishes(a));
  });

  it('validate() changes nothing, not even the order draws', () => {
    const w = new CuisineWorld({ level: 'level_3', agents: 2, seed: 4 });
    const twin = w.clone();
    play(w, ['goto_agent0_storage0', 'goto_agent1_storage0']);
    play(twin, ['goto_agent0_storage0', 'goto_agent1_storage0']);
    const before = { snapshot: w.snapshot(), render: w.render(), metrics: w.metrics() };
    w.validate(['get_agent0_rice_storage0', 'get_agent1_salmon_storage0']);
    w.validate(['goto_agent0_pot0', 'goto_agent0_pot1']);
    w.validate(['bad command']);
    expect({ snapshot: w.snapshot(), render: w.render(), metrics: w.metrics() }).toEqual(before);
    for (let i = 0; i < 20; i++) {
      w.step(['noop_agent0']);
      twin.step(['noop_agent0']);
    }
    expect(w.snapshot()).toEqual(twin.snapshot());
  });

  it('clones are independent and continue the same order draws', () => {
    const w = new CuisineWorld({ level: 'level_4', agents: 2, seed: 9 });
    for (let i = 0; i < 7; i++) w.step(['noop_agent0']);
    const copy = w.clone();
    copy.step(['goto_agent0_storage0']);
    expect(at(w, 'agent0').at).toBe('servingtable0');
    for (let i = 0; i < 20; i++) w.step(['noop_agent0']);
    const again = w.clone();
    const c2 = copy.clone();
    expect(c2.snapshot()).toEqual(copy.snapshot());
    for (let i = 0; i < 20; i++) {
      w.step(['noop_agent0']);
      again.step(['noop_agent0']);
    }
    expect(again.snapshot()).toEqual(w.snapshot());
  });
});

describe('CuisineWorld state text and JSON', () => {
  it('renders the predicates in our layout', () => {
    const w = world('level_0', 2, { orderSource: ['salmonMeatcake'], lifetime: 8 });
    play(w, ['goto_agent0_storage0', 'noop_agent1'], ['get_agent0_salmon_storage0', 'noop_agent1']);
    expect(w.render()).toBe(
      [
        'level: level_0 (L0, very-simple)',
        'step: 2 of 60',
        'orders (dish: steps left), most urgent first:',
        '  salmonMeatcake: 6',
        'agents:',
        '  at(agent0, storage0)',
        '  hold(agent0, salmon)',
        '  at(agent1, servingtable0)',
        '  hold(agent1, nothing)',
        'kitchen:',
        '  inside(storage0, nothing)',
        '  inside(servingtable0, nothing)',
        '  inside(blender0, nothing)',
        'accomplished: none yet',
      ].join('\n'),
    );
  });

  it('gives a plain-JSON snapshot of the same', () => {
    const w = world('level_0', 2, { orderSource: ['salmonMeatcake'], lifetime: 8 });
    const snap = w.snapshot();
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
    expect(snap).toMatchObject({
      kind: 'cuisineworld',
      level: 'level_0',
      step: 0,
      maxSteps: 60,
      orders: [{ dish: 'salmonMeatcake', lifetime: 8 }],
      agents: [
        { id: 'agent0', at: 'servingtable0', hold: null, occupied: false },
        { id: 'agent1', at: 'servingtable0', hold: null, occupied: false },
      ],
      accomplished: [],
      timing: { interval: 0, orderCap: 6 },
    });
  });

  it('briefs a dispatcher with rules, the level’s recipes and hints', () => {
    const b = new CuisineWorld({ level: 'level_3', agents: 2, seed: 1 }).briefing();
    expect(b.rules).toContain('Locations: storage0, servingtable0, chopboard0');
    expect(b.knowledge.split('\n').sort()).toEqual([
      'cookedRice: put rice into a pot, then activate it',
      'salmonSashimi: put salmon into a chopboard, then activate it',
      'salmonSushi: put salmonSashimi + cookedRice into a mixer, then activate it',
      'tunaSashimi: put tuna into a chopboard, then activate it',
      'tunaSushi: put tunaSashimi + cookedRice into a mixer, then activate it',
    ]);
    expect(b.hints.length).toBeGreaterThan(0);
  });
});
