import { describe, expect, it } from 'vitest';
import {
  agent,
  compile,
  edge,
  graph,
  input,
  node,
  output,
  problems,
} from '../../tests/support/graphs.ts';
import { compileGraph } from '../compiler/index.ts';
import { tooDeepAt } from './bounds.ts';
import { DOCUMENT_BOUNDS } from './limits.ts';
import { parseDocument } from './parse.ts';

/** `[[[…1…]]]`: a value `levels` arrays deep. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** A question → agent → answer chain whose agent carries `extra` in its data. */
function chainWith(extra: unknown, data: Record<string, unknown> = {}) {
  return graph(
    [
      input('q'),
      agent('a', '{{ q }}', { ...(extra === undefined ? {} : { extra }), ...data }),
      output('answer'),
    ],
    [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
  );
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('document depth', () => {
  it('refuses a document nested 20,000 deep with the path of the first point too deep', async () => {
    // Built as text: JSON.stringify itself would overflow on a value this deep.
    const text = JSON.stringify(chainWith('DEEP')).replace(
      '"DEEP"',
      `${'['.repeat(20_000)}1${']'.repeat(20_000)}`,
    );
    const result = await compileGraph(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    // root, nodes, the node, data, extra: 5 levels, then 59 more arrays reach the 64th.
    expect(result.problems).toEqual([
      {
        path: `nodes[1].data.extra${'[0]'.repeat(60)}`,
        node: 'a',
        message: 'nested too deep: a document nests at most 64 levels',
      },
    ]);
  });

  it('takes a document exactly as deep as allowed, and refuses one level more', async () => {
    // Unknown top-level fields are kept, so any value may sit there; the document is level 1.
    const withMeta = (meta: unknown) => ({ ...chainWith(undefined), meta });
    const fits = DOCUMENT_BOUNDS.maxDepth - 1;
    expect((await compile(withMeta(nested(fits)))).doc.nodes).toHaveLength(3);
    expect(await problems(withMeta(nested(fits + 1)))).toEqual([
      {
        path: `meta${'[0]'.repeat(fits)}`,
        message: 'nested too deep: a document nests at most 64 levels',
      },
    ]);
  });

  it('refuses a deep or cyclic value handed over in memory without overflowing or hanging', async () => {
    expect(parseDocument(chainWith(nested(100_000)))).toMatchObject({ ok: false });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    cycle.again = cycle;
    const result = await compileGraph(chainWith(cycle));
    expect(result).toMatchObject({
      ok: false,
      problems: [{ path: expect.stringMatching(/^nodes\[1\]\.data\.extra(\.self)+$/) }],
    });
  });

  it('walks a value shared many times in memory once per depth, not once per path', () => {
    // 2^40 paths through 40 shared objects: a walk of every path would never end.
    let shared: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 40; i++) shared = { left: shared, right: shared };
    expect(tooDeepAt(shared, 64)).toBeUndefined();
    expect(tooDeepAt(shared, 20)).toEqual(Array(20).fill('left'));
  });
});

describe('replicas', () => {
  it('refuses a million replicas at validation, in one line naming the list', async () => {
    const found = await problems(chainWith(undefined, { replicate: { items: range(1_000_000) } }));
    expect(found).toEqual([
      {
        path: 'nodes[1].data.replicate.items',
        node: 'a',
        message: '1,000,000 items: a node or group makes at most 1,000 copies',
      },
    ]);
  });

  it('refuses replication nested past the instance bound, naming the node that multiplies out', async () => {
    const doc = graph(
      [
        input('q'),
        node('g', 'group', { replicate: { items: range(500), as: 'outer' } }),
        agent(
          'a',
          '{{ q }} {{ outer }} {{ inner }}',
          { replicate: { items: range(500), as: 'inner' } },
          { parentId: 'g' },
        ),
        output('answer'),
      ],
      [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
    );
    expect(await problems(doc)).toEqual([
      {
        path: 'nodes[2].data.replicate.items',
        node: 'a',
        message:
          'runs as 250,000 copies once the replicas around it are multiplied out; a document may expand to at most 10,000 node instances',
      },
    ]);
  });

  it('counts every node: many replicated nodes together may not pass the bound either', async () => {
    const ids = range(11).map((i) => `a${i}`);
    const doc = graph(
      [
        input('q'),
        ...ids.map((id) => agent(id, '{{ q }}', { replicate: { items: range(1_000) } })),
      ],
      ids.map((id) => edge('q.value', `${id}.q`)),
    );
    expect(await problems(doc)).toEqual([
      {
        path: 'nodes[10]',
        node: 'a9',
        message:
          'takes the document past 10,000 node instances (replicas multiplied out), the most a document may expand to',
      },
    ]);
  });
});
