import { describe, expect, it } from 'vitest';
import { edge, graph, input, node, output, problems, run } from '../../tests/support/graphs.ts';
import { chanceFromResources, resourcesOf } from './chance.ts';

/** A gate over `tries` replicas, each passing the same action with resources S. */
function gates(data: Record<string, unknown>, tries: number, seed: number | string = 1) {
  return graph(
    [
      input('action'),
      ...(data.chance === 'fixed' ? [] : [input('resources', { modality: 'json' })]),
      node('gate', 'gate', {
        replicate: { items: Array.from({ length: tries }, (_, i) => `a${i}`), as: 'agent' },
        key: '{{ agent }}',
        ...data,
      }),
      output('outcome'),
    ],
    [
      edge('action.value', 'gate.value'),
      ...(data.chance === 'fixed' ? [] : [edge('resources.value', 'gate.resources')]),
      edge('gate.outcome', 'outcome.value'),
    ],
    { settings: { seed } },
  );
}

type Outcome = { key: string; executed: boolean; p: number; draw: number; resources: number };

describe('gate node', () => {
  it('computes ITCMA-S Eq. 18 from resources', () => {
    expect(chanceFromResources(0)).toBe(0.75);
    expect(chanceFromResources(1)).toBeCloseTo(0.8655, 4);
    expect(chanceFromResources(-3)).toBeCloseTo(0.5237, 4);
    expect(resourcesOf({ AY: 3 }, 'AY', 1)).toBe(3);
    expect(resourcesOf({ AY: 3 }, 'SG', 1)).toBe(1);
    expect(resourcesOf(-2, 'x', 1)).toBe(-2);
  });

  it('passes about p of the time, reads each replica its own resources, and draws the same for the same seed', async () => {
    const table = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`a${i}`, i < 100 ? 6 : -6]),
    );
    const first = await run(gates({}, 200), {
      inputs: { action: 'take toy 1 from table 6', resources: table },
    });
    expect(first.status).toBe('succeeded');
    const outcomes = first.outputs.outcome as Outcome[];
    expect(outcomes).toHaveLength(200);
    expect(outcomes[0]).toMatchObject({ key: 'a0', resources: 6 });
    expect(outcomes[150]).toMatchObject({ key: 'a150', resources: -6 });
    const rich = outcomes.slice(0, 100).filter((o) => o.executed).length;
    const poor = outcomes.slice(100).filter((o) => o.executed).length;
    // p = 0.9988 and 0.5012: the rich nearly always act, the poor about half the time.
    expect(rich).toBeGreaterThanOrEqual(97);
    expect(poor).toBeGreaterThan(30);
    expect(poor).toBeLessThan(70);
    for (const o of outcomes) expect(o.executed).toBe(o.draw < o.p);

    const again = await run(gates({}, 200), {
      inputs: { action: 'take toy 1 from table 6', resources: table },
    });
    expect(again.outputs.outcome).toEqual(outcomes);
    const other = await run(gates({}, 200, 'another seed'), {
      inputs: { action: 'x', resources: table },
    });
    expect((other.outputs.outcome as Outcome[]).map((o) => o.draw)).not.toEqual(
      outcomes.map((o) => o.draw),
    );
  });

  it('passes the value or null, with a fixed chance', async () => {
    const always = await run(gates({ chance: 'fixed', probability: 1 }, 3), {
      inputs: { action: 'rest' },
    });
    expect(always.error).toBeUndefined();
    expect((always.outputs.outcome as Outcome[]).every((o) => o.executed)).toBe(true);
    const never = await run(gates({ chance: 'fixed', probability: 0 }, 3), {
      inputs: { action: 'rest' },
    });
    expect((never.outputs.outcome as Outcome[]).some((o) => o.executed)).toBe(false);
    const off = await run(gates({ enabled: false, chance: 'fixed', probability: 0 }, 3), {
      inputs: { action: 'rest' },
    });
    expect((off.outputs.outcome as Outcome[]).every((o) => o.executed)).toBe(true);
  });

  it('refuses a probability outside [0, 1] with its path', async () => {
    const found = await problems(gates({ chance: 'fixed', probability: 1.5 }, 1));
    expect(found.map((p) => `${p.path}: ${p.message}`).join('\n')).toMatch(
      /data\.probability: Too big/,
    );
  });
});
