import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../schema/problems.ts';
import type { WorldSpec } from './format.ts';
import { loadWorld } from './load.ts';
import { smallWorld } from './world.test-helper.ts';

/** The problems of the small world after `edit`, one formatted line each. */
function problems(edit: (w: WorldSpec & Record<string, unknown>) => void): string[] {
  const world = smallWorld() as WorldSpec & Record<string, unknown>;
  edit(world);
  const result = loadWorld(JSON.parse(JSON.stringify(world)));
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('loading a world', () => {
  it('accepts the small world, with no warnings', () => {
    const result = loadWorld(smallWorld());
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it.each<[string, (w: WorldSpec & Record<string, unknown>) => void, string]>([
    [
      'an agent in an unknown area',
      (w) => {
        w.agents[2]!.at = 'libary';
      },
      'agents[2].at: there is no area "libary" (areas: yard, kitchen, den)',
    ],
    [
      'an agent standing at furniture',
      (w) => {
        w.agents[0]!.at = 'table 1';
      },
      'agents[0].at: "table 1" is furniture, not an area',
    ],
    [
      'a door to an unknown area',
      (w) => {
        w.areas[1]!.doors.push('cellar');
      },
      'areas[1].doors[1]: there is no area "cellar" (areas: yard, kitchen, den)',
    ],
    [
      'a door to itself',
      (w) => {
        w.areas[1]!.doors.push('kitchen');
      },
      'areas[1].doors[1]: a door from "kitchen" to itself',
    ],
    [
      'an item on unknown furniture',
      (w) => {
        w.items[1]!.at = 'table 9';
      },
      'items[1].at: there is no furniture or agent "table 9"',
    ],
    [
      'an item lying in an area',
      (w) => {
        w.items[1]!.at = 'kitchen';
      },
      'items[1].at: "kitchen" is an area; an item lies on furniture or is held by an agent',
    ],
    [
      'an item in two places',
      (w) => {
        w.items.push({ id: 'toy 1', at: 'shelf 1' });
      },
      'items[4].id: item "toy 1" is listed in two places (also items[1].id)',
    ],
    [
      'an id used twice, whatever the case',
      (w) => {
        w.areas[2]!.furniture.push({ id: 'Table 1', kind: 'table' });
      },
      'areas[2].furniture[1].id: "Table 1" is already the id of furniture (areas[1].furniture[0].id)',
    ],
    [
      'an agent named like an item',
      (w) => {
        w.agents[1]!.name = 'toy 1';
      },
      'agents[1].name: "toy 1" is already the id of an item (items[1].id)',
    ],
    [
      'an owner who is not an agent',
      (w) => {
        w.areas[2]!.owner = 'Z';
      },
      'areas[2].owner: there is no agent "Z" (agents: A, B, C)',
    ],
    [
      'a script action naming a missing item',
      (w) => {
        w.script = [{ step: 2, agent: 'A', action: 'take toy 9 from table 1' }];
      },
      'script[0].action: there is no item "toy 9"',
    ],
    [
      'a script action that is not an action',
      (w) => {
        w.script = [{ step: 2, agent: 'A', action: 'juggle the cups' }];
      },
      'script[0].action: "juggle the cups" is not an action',
    ],
    [
      'a script entry for an unknown agent',
      (w) => {
        w.script = [{ step: 1, agent: 'Q', action: 'rest' }];
      },
      'script[0].agent: there is no agent "Q" (agents: A, B, C)',
    ],
    [
      'a misspelt field',
      (w) => {
        (w.agents[0] as Record<string, unknown>).goa = 'x';
      },
      'agents[0]: Unrecognized key: "goa"',
    ],
    [
      'an id with a colon',
      (w) => {
        w.items[0]!.id = 'cup: blue';
      },
      'items[0].id: an id is letters, digits',
    ],
    [
      'the wrong format',
      (w) => {
        w.format = 'society-world/9' as 'society-world/1';
      },
      'format: format must be "society-world/1"',
    ],
    [
      'too many agents',
      (w) => {
        w.agents = Array.from({ length: 33 }, (_, i) => ({ id: `P${i}`, at: 'yard', goal: 'be' }));
      },
      'agents: Too big',
    ],
  ])('refuses %s, naming the path', (_what, edit, line) => {
    const found = problems(edit);
    expect(
      found.some((p) => p.startsWith(line)),
      found.join('\n'),
    ).toBe(true);
  });

  it('lists every problem, one line each', () => {
    const found = problems((w) => {
      w.agents[0]!.at = 'nowhere';
      w.items[0]!.at = 'nothing';
    });
    expect(found).toEqual([
      'items[0].at: there is no furniture or agent "nothing"',
      'agents[0].at: there is no area "nowhere" (areas: yard, kitchen, den)',
    ]);
  });

  it('refuses text that is not JSON, or not an object, in one line', () => {
    const text = loadWorld('{"format":');
    expect(text.ok).toBe(false);
    if (!text.ok) expect(text.problems[0]!.message).toMatch(/^not valid JSON/);
    const list = loadWorld([]);
    expect(list.ok ? [] : list.problems).toEqual([
      { path: '(world)', message: 'a world must be a JSON object' },
    ]);
  });

  it('warns of an area nobody can reach, without refusing the world', () => {
    const world = smallWorld();
    world.areas.push({ id: 'attic', kind: 'public', doors: [], furniture: [] });
    const result = loadWorld(world);
    expect(result.ok).toBe(true);
    expect(result.warnings.map(formatProblem)).toEqual(['areas[3]: no agent can reach "attic"']);
  });
});
