import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { GraphDocument, GraphEdge, GraphNode } from '../../app/schema/document.ts';
import { fromDocument, toDocument } from './document.ts';
import {
  canonicalJson,
  deleteGraph,
  extractSubsociety,
  graphUses,
  importedGraphs,
  renameGraph,
  rolledUpRun,
  runPrefix,
  sourceHash,
} from './library.ts';
import {
  checkConnection,
  portsOf,
  retargetSubgraph,
  setCanvasLibrary,
  specPorts,
  subgraphOf,
} from './ports.ts';

const node = (id: string, type: string, data: Record<string, unknown>, x = 0): GraphNode =>
  ({ id, type, position: { x, y: 0 }, data }) as GraphNode;
const edge = (source: string, sourceHandle: string, target: string, targetHandle: string) =>
  ({
    id: `${source}-${target}-${targetHandle}`,
    source,
    sourceHandle,
    target,
    targetHandle,
  }) as GraphEdge;

/** question → a, question → b, a → out, b → vote: a and b are moved into a sub-society. */
function doc(): GraphDocument {
  return {
    version: 1,
    name: 'Panel',
    nodes: [
      node('question', 'input', { name: 'question', modality: 'text' }),
      node('a', 'agent', { name: 'a', prompt: '{{ topic }}', model: 'default' }, 300),
      node('b', 'agent', { name: 'b', prompt: '{{ topic }}', model: 'default' }, 300),
      node('answer', 'output', { name: 'answer' }, 600),
      node('last', 'output', { name: 'last' }, 600),
    ],
    edges: [
      edge('question', 'value', 'a', 'topic'),
      edge('question', 'value', 'b', 'topic'),
      edge('a', 'text', 'answer', 'value'),
      edge('b', 'text', 'last', 'value'),
    ],
    graphs: {
      trio: {
        description: 'Three voices',
        nodes: [
          node('topic', 'input', { name: 'topic', modality: 'text' }),
          node('voice', 'agent', { name: 'voice', prompt: '{{ topic }}', model: 'default' }),
          node('said', 'output', { name: 'said' }),
        ],
        edges: [edge('topic', 'value', 'voice', 'topic'), edge('voice', 'text', 'said', 'value')],
      },
    },
  } as GraphDocument;
}

describe('sub-society ports', () => {
  it("are the library graph's input and output nodes, and edges are checked against them", () => {
    const d = doc();
    setCanvasLibrary(d.graphs);
    const society = node('panel', 'society', { graph: 'trio' });
    expect(specPorts(society)).toEqual({
      inputs: [{ name: 'topic', modality: 'text', required: true }],
      outputs: [{ name: 'said', modality: 'text' }],
    });
    const byId = new Map([...d.nodes, society].map((n) => [n.id, n]));
    expect(
      checkConnection(
        { source: 'question', sourceHandle: 'value', target: 'panel', targetHandle: 'topic' },
        byId,
        [],
      ).ok,
    ).toBe(true);
    const wrong = checkConnection(
      { source: 'question', sourceHandle: 'value', target: 'panel', targetHandle: 'nope' },
      byId,
      [],
    );
    expect(wrong).toEqual({ ok: false, reason: 'panel has no input "nope"' });
    expect(portsOf(node('x', 'society', { graph: 'missing' }), byId)).toEqual({
      inputs: [],
      outputs: [],
    });
    setCanvasLibrary(undefined);
  });

  it('are the same in the editor and the engine, an input with a default required too', async () => {
    const d = doc();
    const trio = d.graphs?.trio;
    const input = trio?.nodes.find((n) => n.type === 'input');
    if (!trio || !input) throw new Error('the fixture has a library graph with an input');
    input.data = { ...input.data, default: 'the weather' };
    // Valid data for the engine, which reads a node's ports only when its data parses.
    for (const n of trio.nodes) if (n.type === 'agent') delete n.data.name;
    setCanvasLibrary(d.graphs);
    const editor = specPorts(node('panel', 'society', { graph: 'trio' }));
    setCanvasLibrary(undefined);
    // Its input node is not laid out with the members: only a wire can give it a value.
    expect(editor.inputs).toEqual([{ name: 'topic', modality: 'text', required: true }]);
    const { libraryPorts } = await import('../../app/compiler/expand.ts');
    const { loadNodeRegistry } = await import('../../app/node-sdk/registry.ts');
    expect(libraryPorts(d, await loadNodeRegistry()).subgraphPorts('trio')).toEqual(editor);
  });
});

describe('make sub-society from selection', () => {
  it('moves the nodes, one input per outside source port, one output per inner source port', () => {
    const d = doc();
    const result = extractSubsociety(d.nodes, d.edges, new Set(['a', 'b']), 'pair', () => 'text');
    expect(result.nodes.map((n) => n.id)).toEqual(['question', 'answer', 'last', 'pair']);
    expect(result.society).toMatchObject({ id: 'pair', type: 'society', data: { graph: 'pair' } });
    const inner = result.graph.nodes;
    // question.value fed both a and b: one input node.
    expect(inner.filter((n) => n.type === 'input').map((n) => n.data)).toEqual([
      { name: 'question', modality: 'text' },
    ]);
    expect(inner.filter((n) => n.type === 'output').map((n) => n.data)).toEqual([
      { name: 'a' },
      { name: 'b' },
    ]);
    const wires = (es: GraphEdge[]) =>
      es.map((e) => `${e.source}.${e.sourceHandle}>${e.target}.${e.targetHandle}`).sort();
    expect(wires(result.graph.edges)).toEqual([
      'a.text>out_a.value',
      'b.text>out_b.value',
      'in_question.value>a.topic',
      'in_question.value>b.topic',
    ]);
    expect(wires(result.edges)).toEqual([
      'pair.a>answer.value',
      'pair.b>last.value',
      'question.value>pair.question',
    ]);
  });
});

describe('the canvas inside a library graph', () => {
  it('edits the library graph and saves it in its place; the document graph is kept', () => {
    const d = doc();
    const canvas = fromDocument(d, [{ graph: 'trio', via: 'panel' }]);
    expect(canvas.nodes.map((n) => n.id)).toEqual(['topic', 'voice', 'said']);
    canvas.nodes = canvas.nodes.map((n) =>
      n.id === 'voice' ? { ...n, data: { ...n.data, prompt: 'Hi {{ topic }}' } } : n,
    );
    const saved = toDocument(canvas);
    expect(saved.nodes).toEqual(d.nodes);
    expect(saved.graphs?.trio?.nodes[1]?.data).toMatchObject({ prompt: 'Hi {{ topic }}' });
    expect(saved.graphs?.trio?.description).toBe('Three voices');
    // A path whose graph is gone opens as far as it still exists.
    expect(fromDocument(d, [{ graph: 'gone' }]).path).toEqual([]);
    expect(runPrefix(canvas.path)).toBe('panel/');
  });
});

describe('run statuses of a sub-society', () => {
  it("roll up its members' states onto its node", () => {
    const run = (state: 'waiting' | 'running' | 'done' | 'failed' | 'skipped') => ({
      state,
      active: state === 'running' ? 1 : 0,
      finished: state === 'done' ? 1 : 0,
    });
    expect(rolledUpRun({ 'p/a': run('done'), 'p/b': run('running') }, 'p', true)?.state).toBe(
      'running',
    );
    expect(rolledUpRun({ 'p/a': run('done'), 'p/b': run('skipped') }, 'p', true)?.state).toBe(
      'done',
    );
    expect(rolledUpRun({ 'p/a': run('skipped') }, 'p', true)?.state).toBe('skipped');
    expect(
      rolledUpRun({ 'p/a': run('done'), 'p/b': { ...run('failed'), error: 'boom' } }, 'p', true),
    ).toMatchObject({ state: 'failed', error: 'boom' });
    expect(rolledUpRun({ 'p/a': run('done'), 'p/b': run('waiting') }, 'p', true)?.state).toBe(
      'running',
    );
  });
});

describe('insert a document as a sub-society', () => {
  it('hashes its canonical content: formatting aside, any change shows', async () => {
    const d = doc();
    const hash = await sourceHash(d);
    expect(hash).toBe(createHash('sha256').update(canonicalJson(d)).digest('hex'));
    const { edges, ...rest } = d;
    const reordered = JSON.parse(JSON.stringify({ edges, ...rest }, null, 4)) as GraphDocument;
    expect(await sourceHash(reordered)).toBe(hash);
    expect(await sourceHash({ ...d, name: 'Panel 2' })).not.toBe(hash);
  });

  it('copies its graph and library, renaming what clashes, with its source', () => {
    const d = doc();
    const nested = { ...d, nodes: [...d.nodes, node('inner', 'society', { graph: 'trio' })] };
    const { main, graphs } = importedGraphs(
      nested,
      { trio: d.graphs!.trio!, panel: d.graphs!.trio! },
      'abc',
      retargetSubgraph,
    );
    expect(main).toBe('panel2');
    expect(Object.keys(graphs).sort()).toEqual(['panel2', 'trio2']);
    expect(graphs.panel2?.source).toEqual({ name: 'Panel', hash: 'abc' });
    expect(graphs.panel2?.nodes.find((n) => n.id === 'inner')?.data).toEqual({ graph: 'trio2' });
  });
});

/** The document's graph runs `trio` as `panel`; library graph `duo` runs it too, as `inner`. */
function nestedDoc(): GraphDocument {
  const d = doc();
  const trio = d.graphs!.trio!;
  return {
    ...d,
    nodes: [...d.nodes, node('panel', 'society', { graph: 'trio' })],
    graphs: {
      trio,
      duo: { nodes: [...trio.nodes, node('inner', 'society', { graph: 'trio' })], edges: [] },
      spare: { nodes: [], edges: [] },
    },
  };
}

describe('library management', () => {
  it('renames a graph and every society node naming it, in the document and the library', () => {
    const next = renameGraph(nestedDoc(), 'trio', 'voices', retargetSubgraph);
    if (typeof next === 'string') throw new Error(next);
    expect(Object.keys(next.graphs!)).toEqual(['voices', 'duo', 'spare']);
    expect(next.nodes.find((n) => n.id === 'panel')?.data).toEqual({ graph: 'voices' });
    expect(next.graphs!.duo!.nodes.find((n) => n.id === 'inner')?.data).toEqual({
      graph: 'voices',
    });
    expect(next.graphs!.voices!.description).toBe('Three voices');
    expect(graphUses(next, 'trio', subgraphOf)).toEqual([]);
  });

  it('refuses a name taken or not an identifier', () => {
    const d = nestedDoc();
    expect(renameGraph(d, 'trio', 'duo', retargetSubgraph)).toBe(
      'The library already has a graph "duo".',
    );
    for (const bad of ['2nd', 'two words', 'constructor', ''])
      expect(renameGraph(d, 'trio', bad, retargetSubgraph)).toMatch(/is not a graph name/);
    expect(renameGraph(d, 'nope', 'x', retargetSubgraph)).toBe('The library has no graph "nope".');
  });

  it('deletes an unused graph; refuses one in use, naming its users', () => {
    const d = nestedDoc();
    expect(graphUses(d, 'trio', subgraphOf)).toEqual([
      { graph: null, node: 'panel' },
      { graph: 'duo', node: 'inner' },
    ]);
    expect(deleteGraph(d, 'trio', subgraphOf)).toBe(
      '"trio" is used by panel, inner (in duo): point them at another graph or delete them first.',
    );
    const next = deleteGraph(d, 'spare', subgraphOf);
    if (typeof next === 'string') throw new Error(next);
    expect(Object.keys(next.graphs!)).toEqual(['trio', 'duo']);
    // The last graph gone, the document has no library left.
    const bare = { ...doc(), graphs: { spare: { nodes: [], edges: [] } } } as GraphDocument;
    const emptied = deleteGraph(bare, 'spare', subgraphOf);
    expect(typeof emptied !== 'string' && 'graphs' in emptied).toBe(false);
  });
});
