import { beforeEach, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../app/schema/document.ts';
import {
  deleteSelected,
  loadDocument,
  onEdgesChange,
  onNodesChange,
  redo,
  selectNode,
  undo,
  useEditor,
} from './store.ts';

const doc = {
  version: 1,
  name: 'two nodes',
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    { id: 'out', type: 'output', position: { x: 300, y: 0 }, data: { name: 'out' } },
  ],
  edges: [
    { id: 'q-out', source: 'q', sourceHandle: 'value', target: 'out', targetHandle: 'value' },
  ],
} as unknown as GraphDocument;

const ids = () => ({
  nodes: useEditor.getState().nodes.map((n) => n.id),
  edges: useEditor.getState().edges.map((e) => e.id),
});

describe('undoing a deleted node', () => {
  beforeEach(() => loadDocument(doc));

  it('brings the node back with its edges in one step, as React Flow deletes them', () => {
    // React Flow removes the node's edges first, then the node, in one turn.
    onEdgesChange([{ type: 'remove', id: 'q-out' }]);
    onNodesChange([{ type: 'remove', id: 'out' }]);
    expect(ids()).toEqual({ nodes: ['q'], edges: [] });
    undo();
    expect(ids()).toEqual({ nodes: ['q', 'out'], edges: ['q-out'] });
    redo();
    expect(ids()).toEqual({ nodes: ['q'], edges: [] });
  });

  it('does the same for the Delete of the editor, and keeps later deletes apart', async () => {
    selectNode('q');
    deleteSelected();
    expect(ids()).toEqual({ nodes: ['out'], edges: [] });
    await Promise.resolve();
    selectNode('out');
    deleteSelected();
    expect(ids().nodes).toEqual([]);
    undo();
    expect(ids()).toEqual({ nodes: ['out'], edges: [] });
    undo();
    expect(ids()).toEqual({ nodes: ['q', 'out'], edges: ['q-out'] });
  });
});
