import { useMemo } from 'react';
import type { FlowNode } from '../model/document.ts';
import { replicateOf } from '../model/ports.ts';
import type { NodeNames } from '../model/transcript-filter.ts';
import { type EditorState, useEditor } from '../store.ts';

// Node names (labels, replicate items) as one string per nodes array: a panel that names copies
// re-renders when a label or an item list changes, not when a node is dragged.
const namesCache = new WeakMap<readonly FlowNode[], string>();

function namesSignature(s: EditorState): string {
  let text = namesCache.get(s.nodes);
  if (text === undefined) {
    const names: Record<string, NodeNames> = {};
    for (const n of s.nodes) {
      const label = typeof n.data.label === 'string' ? n.data.label : undefined;
      const items = replicateOf(n)?.items;
      if (label || items)
        names[n.id] = { ...(label ? { label } : {}), ...(items ? { items } : {}) };
    }
    text = JSON.stringify(names);
    namesCache.set(s.nodes, text);
  }
  return text;
}

/**
 * Each node's label and replicate items, by id: what the run panels name members and copies
 * with ("artists#3 (Cubism)").
 */
export function useNodeNames(): ReadonlyMap<string, NodeNames> {
  const text = useEditor(namesSignature);
  return useMemo(
    () => new Map(Object.entries(JSON.parse(text) as Record<string, NodeNames>)),
    [text],
  );
}
