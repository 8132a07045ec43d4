import { describe, expect, it } from 'vitest';
import { at, loadBlender, place, play, refusal, world } from './world.test-helper.ts';
import type { CuisineOptions } from './world.ts';

describe('CuisineWorld preconditions: a failing command is skipped, the others run', () => {
  const precondition = (reason: string, message: string) => ({
    stage: 'precondition',
    reason,
    message,
  });
  // A chopboard that keeps its worker busy for a step more makes a busy agent observable
  // (with the public code's timing an agent is never busy at the start of a step).
  const slowBoard: CuisineOptions = { tools: { chopboard: { busySteps: 2 } } };
  /** L2 with the slow board: agent0 chops salmon and is left busy for the next step. */
  function busyChopper() {
    const w = world('level_2', 2, slowBoard);
    play(
      w,
      ['goto_agent0_storage0', 'noop_agent1'],
      ['get_agent0_salmon_storage0', 'noop_agent1'],
      ['goto_agent0_chopboard0', 'noop_agent1'],
      ['put_agent0_chopboard0', 'noop_agent1'],
      ['activate_agent0_chopboard0', 'noop_agent1'],
    );
    expect(at(w, 'agent0').busy).toBe(1);
    expect(w.render()).toContain('occupy(agent0)');
    return w;
  }

  it('goto: a busy agent cannot walk', () => {
    expect(refusal(busyChopper(), ['goto_agent0_storage0'])).toEqual(
      precondition('agent-busy', 'agent0 is occupied and can only noop until it is free'),
    );
  });

  it('get: the agent must be there', () => {
    expect(refusal(world(), ['get_agent0_salmon_storage0'])).toEqual(
      precondition('not-at-location', 'agent0 is not at storage0'),
    );
  });

  it('get: nothing comes back off the serving table', () => {
    expect(refusal(world(), ['get_agent0_servingtable0'])).toEqual(
      precondition('not-pickable', 'nothing can be taken back from servingtable0'),
    );
  });

  it('get: a tool gives nothing before it has been activated', () => {
    const w = world();
    loadBlender(w);
    expect(refusal(w, ['get_agent0_blender0'])).toEqual(
      precondition(
        'not-pickable',
        'agent0 cannot take anything from blender0 before it has been activated',
      ),
    );
  });

  it('get: a busy agent cannot take', () => {
    expect(refusal(busyChopper(), ['get_agent0_chopboard0'])).toEqual(
      precondition('agent-busy', 'agent0 is occupied and can only noop until it is free'),
    );
  });

  it('get: an agent carries one thing at a time', () => {
    const w = world();
    play(w, ['goto_agent0_storage0'], ['get_agent0_salmon_storage0']);
    expect(refusal(w, ['get_agent0_flour_storage0'])).toEqual(
      precondition('hands-full', 'agent0 is holding salmon and cannot take anything more'),
    );
  });

  it('get: an occupied tool gives nothing', () => {
    const w = world();
    loadBlender(w);
    play(w, ['activate_agent0_blender0']);
    expect(refusal(w, ['get_agent1_blender0'])).toEqual(
      precondition('location-busy', 'blender0 is occupied, so agent1 cannot take anything from it'),
    );
  });

  it('get: storage only hands out base ingredients', () => {
    const w = world();
    play(w, ['goto_agent0_storage0']);
    expect(refusal(w, ['get_agent0_salmonMeatcake_storage0'])).toEqual(
      precondition(
        'not-base-ingredient',
        'agent0 can only take base ingredients from storage0, and salmonMeatcake is not one',
      ),
    );
  });

  it('get: nothing comes out of an empty tool', () => {
    const w = world('level_2');
    play(w, ['goto_agent0_chopboard0']);
    expect(refusal(w, ['get_agent0_chopboard0'])).toEqual(
      precondition('empty-location', 'chopboard0 is empty, there is nothing to take'),
    );
  });

  it('get: a chopboard gives back what lies on it even before chopping', () => {
    const w = world('level_2');
    play(
      w,
      ['goto_agent0_storage0'],
      ['get_agent0_tuna_storage0'],
      ['goto_agent0_chopboard0'],
      ['put_agent0_chopboard0'],
      ['get_agent0_chopboard0'],
    );
    expect(at(w, 'agent0').hold).toBe('tuna');
  });

  it('put: the agent must be there', () => {
    const w = world();
    play(w, ['goto_agent0_storage0'], ['get_agent0_salmon_storage0']);
    expect(refusal(w, ['put_agent0_blender0'])).toEqual(
      precondition('not-at-location', 'agent0 is not at blender0'),
    );
  });

  it('put: the serving table takes only dishes this level orders', () => {
    const w = world();
    play(
      w,
      ['goto_agent0_storage0'],
      ['get_agent0_salmon_storage0'],
      ['goto_agent0_servingtable0'],
    );
    expect(refusal(w, ['put_agent0_servingtable0'])).toEqual(
      precondition(
        'not-level-dish',
        'salmon is not a dish this level needs, so it cannot go on servingtable0',
      ),
    );
  });

  it('put: what fits no recipe of the tool is refused as waste', () => {
    const w = world();
    play(w, ['goto_agent0_storage0'], ['get_agent0_pork_storage0'], ['goto_agent0_blender0']);
    expect(refusal(w, ['put_agent0_blender0'])).toEqual(
      precondition('put-waste', 'putting pork into blender0 would make waste'),
    );
  });

  it('put: a busy agent cannot put', () => {
    expect(refusal(busyChopper(), ['put_agent0_chopboard0'])).toEqual(
      precondition('agent-busy', 'agent0 is occupied and can only noop until it is free'),
    );
  });

  it('put: empty hands have nothing to put', () => {
    expect(refusal(world(), ['put_agent0_servingtable0'])).toEqual(
      precondition('hands-empty', 'agent0 holds nothing to put into servingtable0'),
    );
  });

  it('put: nothing goes into an occupied tool', () => {
    // Under the public code's waste rule a wrong item is refused as waste first, so the plain
    // occupied case shows with the cooking rule: salmon alone blends into waste.
    const v = world('level_0', 2, { wasteRule: 'cook' });
    play(
      v,
      ['goto_agent0_storage0', 'goto_agent1_storage0'],
      ['get_agent0_salmon_storage0', 'get_agent1_pork_storage0'],
      ['goto_agent0_blender0', 'goto_agent1_blender0'],
      ['put_agent0_blender0', 'noop_agent1'],
      ['activate_agent0_blender0', 'noop_agent1'],
    );
    expect(refusal(v, ['put_agent1_blender0'])).toEqual(
      precondition('location-busy', 'blender0 is occupied, so nothing can be put into it now'),
    );
  });

  it('put: a full tool takes nothing new', () => {
    const w = world('level_2', 2, { wasteRule: 'cook' });
    play(
      w,
      ['goto_agent0_storage0', 'goto_agent1_storage0'],
      ['get_agent0_salmon_storage0', 'get_agent1_tuna_storage0'],
      ['goto_agent0_chopboard0', 'goto_agent1_chopboard0'],
      ['put_agent0_chopboard0', 'noop_agent1'],
    );
    expect(refusal(w, ['put_agent1_chopboard0'])).toEqual(
      precondition('full', 'chopboard0 is full (it holds at most 1)'),
    );
  });

  it('put: a second copy of an item already inside merges with it (and is gone)', () => {
    const w = world();
    play(
      w,
      ['goto_agent0_storage0', 'goto_agent1_storage0'],
      ['get_agent0_flour_storage0', 'get_agent1_flour_storage0'],
      ['goto_agent0_blender0', 'goto_agent1_blender0'],
      ['put_agent0_blender0', 'put_agent1_blender0'],
    );
    expect(place(w, 'blender0').contents).toEqual(['flour']);
    expect(at(w, 'agent1').hold).toBeNull();
  });

  it('put: storage takes anything back and it is gone', () => {
    const w = world();
    play(w, ['goto_agent0_storage0'], ['get_agent0_pork_storage0'], ['put_agent0_storage0']);
    expect(at(w, 'agent0').hold).toBeNull();
    expect(place(w, 'storage0').contents).toEqual([]);
  });

  it('activate: the agent must be there', () => {
    const w = world();
    loadBlender(w);
    play(w, ['goto_agent0_storage0']);
    expect(refusal(w, ['activate_agent0_blender0'])).toEqual(
      precondition('not-at-location', 'agent0 is not at blender0'),
    );
  });

  it('activate: only cooking tools switch on', () => {
    expect(refusal(world(), ['activate_agent0_servingtable0'])).toEqual(
      precondition(
        'not-activatable',
        'servingtable0 is not a cooking tool and cannot be activated',
      ),
    );
  });

  it('activate: a busy agent cannot switch anything on', () => {
    expect(refusal(busyChopper(), ['activate_agent0_chopboard0'])).toEqual(
      precondition('agent-busy', 'agent0 is occupied and can only noop until it is free'),
    );
  });

  it('activate: hands must be empty', () => {
    const w = world();
    play(w, ['goto_agent0_storage0'], ['get_agent0_salmon_storage0'], ['goto_agent0_blender0']);
    expect(refusal(w, ['activate_agent0_blender0'])).toEqual(
      precondition('hands-full', 'agent0 is holding salmon and cannot activate blender0'),
    );
  });

  it('activate: an occupied tool cannot be switched on again', () => {
    const w = world();
    loadBlender(w);
    play(w, ['activate_agent0_blender0']);
    expect(refusal(w, ['activate_agent1_blender0'])).toEqual(
      precondition('location-busy', 'blender0 is occupied and cannot be activated again yet'),
    );
  });

  it('activate: an empty tool has nothing to cook', () => {
    const w = world();
    play(w, ['goto_agent0_blender0']);
    expect(refusal(w, ['activate_agent0_blender0'])).toEqual(
      precondition('empty-location', 'blender0 is empty, there is nothing to activate'),
    );
  });

  it('activate: an incomplete recipe would make waste', () => {
    const w = world();
    play(w, ['goto_agent0_storage0'], ['get_agent0_salmon_storage0'], ['goto_agent0_blender0']);
    play(w, ['put_agent0_blender0']);
    expect(refusal(w, ['activate_agent0_blender0'])).toEqual(
      precondition(
        'activate-waste',
        'activating blender0 would make waste: salmon is no recipe of this level for a blender',
      ),
    );
  });

  it('runs the other commands of a step with a failing one, in order', () => {
    const w = world();
    const result = w.step(['get_agent0_salmon_storage0', 'goto_agent1_storage0']);
    expect(result.validation.accepted).toEqual(['goto_agent1_storage0']);
    expect(result.validation.rejections.map((r) => r.reason)).toEqual(['not-at-location']);
    expect(at(w, 'agent1').at).toBe('storage0');
    expect(w.metrics()).toMatchObject({ idleSteps: 0, invalid: { 'not-at-location': 1 } });
  });

  it('suggests clearing waste, which only the cooking rule can make', () => {
    const w = world('level_0', 2, { wasteRule: 'cook' });
    play(w, ['goto_agent0_storage0'], ['get_agent0_pork_storage0'], ['goto_agent0_blender0']);
    play(w, ['put_agent0_blender0']);
    const result = w.step(['activate_agent0_blender0']);
    expect(place(w, 'blender0').contents).toEqual(['waste']);
    expect(result.suggestions).toEqual(['put the waste into the storage']);
    play(w, ['noop_agent0'], ['get_agent0_blender0'], ['goto_agent0_storage0']);
    const cleared = w.step(['put_agent0_storage0']);
    expect(cleared.suggestions).toEqual([]);
  });
});
