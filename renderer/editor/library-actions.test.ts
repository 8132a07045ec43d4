import { beforeEach, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../app/schema/document.ts';
import {
  addNode,
  currentDocument,
  loadDocument,
  selectNode,
  undo,
  updateNodeData,
  useEditor,
} from '../store.ts';
import {
  closeGraphs,
  makeSubsociety,
  nodeOfRunId,
  openGraph,
  revealNode,
} from './library-actions.ts';

const doc = {
  version: 1,
  name: 'library',
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    { id: 'panel', type: 'society', position: { x: 300, y: 0 }, data: { graph: 'trio' } },
  ],
  edges: [
    { id: 'q-panel', source: 'q', sourceHandle: 'value', target: 'panel', targetHandle: 'topic' },
  ],
  graphs: {
    trio: {
      nodes: [
        { id: 'topic', type: 'input', position: { x: 0, y: 0 }, data: { name: 'topic' } },
        { id: 'said', type: 'output', position: { x: 300, y: 0 }, data: { name: 'said' } },
      ],
      edges: [
        {
          id: 't-s',
          source: 'topic',
          sourceHandle: 'value',
          target: 'said',
          targetHandle: 'value',
        },
      ],
    },
  },
} as unknown as GraphDocument;

const shown = () => useEditor.getState().nodes.map((n) => n.id);

describe('editing a library graph in the store', () => {
  beforeEach(() => loadDocument(doc));

  it('keeps the graph open through undo, saves into the library, and leads back out', () => {
    openGraph('trio', 'panel');
    expect(shown()).toEqual(['topic', 'said']);
    updateNodeData('said', { name: 'verdict' });
    expect(useEditor.getState().dirty).toBe(true);
    expect(currentDocument().graphs?.trio?.nodes[1]?.data).toEqual({ name: 'verdict' });
    expect(currentDocument().nodes).toEqual(doc.nodes);
    undo();
    expect(useEditor.getState().path).toEqual([{ graph: 'trio', via: 'panel' }]);
    expect(currentDocument().graphs?.trio?.nodes[1]?.data).toEqual({ name: 'said' });
    closeGraphs(0);
    expect(shown()).toEqual(['q', 'panel']);
  });

  it('makes a sub-society from a selection inside an open graph, as one undo step', () => {
    openGraph('trio', 'panel');
    selectNode('said');
    expect(makeSubsociety('tail')).toBeNull();
    expect(shown()).toEqual(['topic', 'tail']);
    expect(Object.keys(currentDocument().graphs ?? {})).toEqual(['trio', 'tail']);
    expect(makeSubsociety('tail')).toBe('Select the nodes to move into the sub-society first.');
    undo();
    expect(shown()).toEqual(['topic', 'said']);
    expect(Object.keys(currentDocument().graphs ?? {})).toEqual(['trio']);
  });

  it("gives a new sub-society node the library's first graph, or a new empty one", () => {
    const id = addNode('society', { x: 0, y: 300 });
    expect(useEditor.getState().nodes.find((n) => n.id === id)?.data.graph).toBe('trio');
    loadDocument({ ...doc, nodes: [], edges: [], graphs: undefined } as GraphDocument);
    const fresh = addNode('society', { x: 0, y: 0 });
    const graph = useEditor.getState().nodes.find((n) => n.id === fresh)?.data.graph as string;
    expect(currentDocument().graphs?.[graph]).toEqual({ nodes: [], edges: [] });
  });
});

describe('revealing a node by the id a run gives it', () => {
  beforeEach(() => loadDocument(doc));

  it('opens the sub-societies on the way and selects the member', () => {
    revealNode('panel/said');
    expect(useEditor.getState().path).toEqual([{ graph: 'trio', via: 'panel' }]);
    expect(useEditor.getState().nodes.find((n) => n.selected)?.id).toBe('said');
    revealNode('q');
    expect(useEditor.getState().path).toEqual([]);
    expect(useEditor.getState().nodes.find((n) => n.selected)?.id).toBe('q');
  });
});

describe('finding a node by the id a run gives it', () => {
  beforeEach(() => loadDocument(doc));

  it('looks through the library wherever the canvas is', () => {
    expect(nodeOfRunId(useEditor.getState(), 'panel/said')?.data).toEqual({ name: 'said' });
    openGraph('trio', 'panel');
    updateNodeData('said', { name: 'verdict' });
    expect(nodeOfRunId(useEditor.getState(), 'panel/said')?.data).toEqual({ name: 'verdict' });
    expect(nodeOfRunId(useEditor.getState(), 'q')?.type).toBe('input');
    expect(nodeOfRunId(useEditor.getState(), 'q/said')).toBeUndefined();
  });
});
