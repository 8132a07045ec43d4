import { describe, expect, it } from 'vitest';
import { BUILTIN_WORLDS, builtinWorld, irollanValley } from './builtin.ts';
import { loadWorld } from './load.ts';
import { TextWorld } from './world.ts';

describe('the Irollan Valley', () => {
  it('loads cleanly: six homes, the canteen, the reading room and the courtyard', () => {
    expect(BUILTIN_WORLDS).toContain('irollan-valley');
    const spec = irollanValley();
    expect(loadWorld(spec)).toMatchObject({ ok: true, warnings: [] });
    expect(spec.agents.map((a) => a.id)).toEqual(['AY', 'SG', 'MD', 'WL', 'LL', 'WM']);
    const kinds = spec.areas.map((a) => a.kind);
    expect(kinds.filter((k) => k === 'home')).toHaveLength(6);
    expect(kinds.filter((k) => k === 'public')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'outdoor')).toHaveLength(1);
    for (const agent of spec.agents) {
      expect(spec.areas.find((a) => a.owner === agent.id)?.id).toBe(agent.at);
      expect(agent.goal.length).toBeGreaterThan(10);
    }
    const items = spec.items.map((i) => i.id);
    for (const id of ['$10 bill', 'gold coin 1', 'magnifying glass 1', 'toy 1', 'clothes 1'])
      expect(items).toContain(id);
    const furniture = spec.areas.flatMap((a) => a.furniture.map((f) => f.kind));
    for (const kind of [
      'table',
      'chair',
      'bed',
      'bookshelf',
      'storage bin',
      'sink basin',
      'stove burner',
    ])
      expect(furniture).toContain(kind);
  });

  it('gives every agent at least five actions at step 0', () => {
    const w = TextWorld.create(irollanValley());
    for (const agent of w.agents()) expect(w.actionSpace(agent).length).toBeGreaterThanOrEqual(5);
  });

  it('washes and heats in the canteen', () => {
    const w = TextWorld.create(irollanValley());
    const go = (action: string) => expect(w.apply('SG', action).ok, action).toBe(true);
    go('take clothes 1 from wardrobe 1');
    go('go to courtyard');
    go('go to canteen');
    go('put clothes 1 in sink basin 1');
    go('use sink basin 1');
    expect(w.state().items['clothes 1']!.states).toEqual(['clean', 'damp']);
    go('take clothes 1 from sink basin 1');
    go('put clothes 1 on stove burner 1');
    go('use stove burner 1');
    expect(w.state().items['clothes 1']!.states).toEqual(['clean', 'hot']);
  });

  it('hands out a fresh copy each time, and nothing for an unknown name', () => {
    const a = irollanValley();
    a.agents[0]!.goal = 'changed';
    expect(irollanValley().agents[0]!.goal).not.toBe('changed');
    expect(builtinWorld('atlantis')).toBeUndefined();
  });
});
