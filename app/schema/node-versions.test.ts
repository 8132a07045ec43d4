import { describe, expect, it } from 'vitest';
import type { NodeDataVersioning, NodeTypes } from './node-versions.ts';
import { parseDocument, serializeDocument } from './parse.ts';
import { formatProblem } from './problems.ts';

/** A "note" type at data version 3: v1 had `text`, v2 renamed it `body`, v3 added `lines`. */
const note: NodeDataVersioning = {
  version: 3,
  migrations: {
    1: ({ text, ...rest }) => ({ ...rest, body: text }),
    2: (data) => ({ ...data, lines: String(data.body ?? '').split('\n').length }),
  },
};
const types: NodeTypes = new Map([['note', note]]);

const doc = (nodes: Array<Record<string, unknown>>) => ({
  version: 1,
  name: 'notes',
  nodes: nodes.map((n, i) => ({ id: `n${i}`, type: 'note', position: { x: 0, y: 0 }, ...n })),
  edges: [],
});

describe('node data versions', () => {
  it('brings old node data up to its type’s version and records the version', () => {
    const result = parseDocument(
      doc([{ data: { text: 'a\nb' } }, { version: 2, data: { body: 'c' } }]),
      { nodes: types },
    );
    if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
    expect(result.doc.nodes.map((n) => [n.version, n.data])).toEqual([
      [3, { body: 'a\nb', lines: 2 }],
      [3, { body: 'c', lines: 1 }],
    ]);
    expect(result.migratedNodes).toEqual([
      { node: 'n0', type: 'note', from: 1, to: 3 },
      { node: 'n1', type: 'note', from: 2, to: 3 },
    ]);
    // Saved, it reads back unchanged: the current version is written.
    const again = parseDocument(serializeDocument(result.doc), { nodes: types });
    expect(again).toMatchObject({ ok: true, doc: result.doc, migratedNodes: [] });
  });

  it('brings the library graphs’ nodes up to date too, naming them by their place', () => {
    const base = doc([{ version: 3, data: { body: 'x', lines: 1 } }]);
    const result = parseDocument(
      { ...base, graphs: { notes: { nodes: doc([{ data: { text: 'old' } }]).nodes, edges: [] } } },
      { nodes: types },
    );
    if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
    expect(result.doc.graphs?.notes?.nodes[0]).toMatchObject({
      version: 3,
      data: { body: 'old', lines: 1 },
    });
    const newer = parseDocument(
      { ...base, graphs: { notes: { nodes: doc([{ version: 9, data: {} }]).nodes, edges: [] } } },
      { nodes: types },
    );
    expect(newer.ok ? [] : newer.problems.map(formatProblem)).toEqual([
      'node "n0" (graphs.notes.nodes[0].version): its data is version 9, but this build\'s "note" node type reads up to version 3',
    ]);
  });

  it('leaves data alone without node types, and nodes of types it does not know', () => {
    const input = doc([{ data: { text: 'old' } }, { type: 'mystery', data: { x: 1 } }]);
    const plain = parseDocument(input);
    expect(plain.ok && plain.doc.nodes[0]?.data).toEqual({ text: 'old' });
    const typed = parseDocument(input, { nodes: types });
    expect(typed.ok && typed.doc.nodes[1]).toMatchObject({ type: 'mystery', data: { x: 1 } });
    expect(typed.ok && typed.doc.nodes[1]?.version).toBeUndefined();
  });

  it('does not change the document it was given', () => {
    const input = doc([{ data: { text: 'old' } }]);
    const before = JSON.stringify(input);
    parseDocument(input, { nodes: types });
    expect(JSON.stringify(input)).toBe(before);
  });

  it('names the node when a migration fails, in one line', () => {
    const broken = new Map([
      [
        'note',
        {
          version: 2,
          migrations: {
            1: () => {
              throw new Error('text must be a string');
            },
          },
        },
      ],
    ]);
    const result = parseDocument(doc([{ id: 'intro', data: {} }]), { nodes: broken });
    if (result.ok) expect.fail('expected a problem');
    expect(result.problems.map(formatProblem)).toEqual([
      'node "intro" (nodes[0].version): migrating its data from version 1 to 2 failed: text must be a string',
    ]);
  });

  it('refuses data newer than its type, and a missing step', () => {
    const newer = parseDocument(doc([{ id: 'later', version: 4, data: {} }]), { nodes: types });
    expect(newer.ok ? [] : newer.problems.map(formatProblem)).toEqual([
      'node "later" (nodes[0].version): its data is version 4, but this build\'s "note" node type reads up to version 3',
    ]);
    const gap = new Map([['note', { version: 2 }]]);
    const missing = parseDocument(doc([{ id: 'old', data: {} }]), { nodes: gap });
    expect(missing.ok ? [] : missing.problems.map(formatProblem)).toEqual([
      'node "old" (nodes[0].version): the "note" node type has no migration from version 1',
    ]);
  });

  it('checks the recorded version is a positive whole number', () => {
    const result = parseDocument(doc([{ version: 0, data: {} }]), { nodes: types });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problems[0]?.path).toBe('nodes[0].version');
  });
});

describe('a node type split in two (retype)', () => {
  /** "shape" once drew circles too (`kind: "circle"`); circles are a type of their own now. */
  const shape: NodeDataVersioning = {
    version: 2,
    migrations: { 1: (data) => ({ ...data, filled: data.filled ?? false }) },
    retype: ({ kind, radius, ...rest }) =>
      kind === 'circle'
        ? { type: 'circle', data: { ...rest, r: radius } }
        : kind === undefined
          ? undefined
          : { type: 'shape', data: rest },
  };
  const circle: NodeDataVersioning = {};
  const split: NodeTypes = new Map([
    ['shape', shape],
    ['circle', circle],
  ]);
  const nodes = (data: Record<string, unknown>[]) =>
    doc(data.map((d) => ({ data: d }))).nodes.map((n) => ({ ...n, type: 'shape' }));

  it('moves old data to the type it belongs to now, then runs that type’s versions', () => {
    const result = parseDocument(
      {
        ...doc([]),
        nodes: nodes([{ kind: 'circle', radius: 3 }, { kind: 'square', side: 2 }, {}]),
      },
      { nodes: split },
    );
    if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
    expect(result.doc.nodes.map((n) => [n.type, n.data, n.version])).toEqual([
      ['circle', { r: 3 }, undefined],
      ['shape', { side: 2, filled: false }, 2],
      ['shape', { filled: false }, 2],
    ]);
    expect(result.migratedNodes).toEqual([
      { node: 'n0', type: 'circle', from: 1, to: 1, was: 'shape' },
      { node: 'n1', type: 'shape', from: 1, to: 2 },
      { node: 'n2', type: 'shape', from: 1, to: 2 },
    ]);
  });

  it('leaves a node as stored when the type it names is not known here', () => {
    const result = parseDocument(
      { ...doc([]), nodes: nodes([{ kind: 'circle', radius: 3 }]) },
      { nodes: new Map([['shape', shape]]) },
    );
    if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
    expect(result.doc.nodes[0]).toMatchObject({ type: 'shape', data: { kind: 'circle' } });
  });
});
