import { useUpdateNodeInternals } from '@xyflow/react';
import { useEffect, useMemo, useRef } from 'react';
import type { NodePorts } from '../../app/node-sdk/define.ts';
import { replicateOf, specPorts } from '../model/ports.ts';
import { useEditor } from '../store.ts';

type NodeList = ReadonlyArray<{ id: string; parentId?: string; data: Record<string, unknown> }>;

/**
 * One id → node index per nodes array, shared by every node's selector: each store change runs
 * one selector per node, and a search of the whole list in each made every change (a drag step)
 * cost nodes² on a big canvas.
 */
const indexes = new WeakMap<NodeList, Map<string, NodeList[number]>>();
function indexOf(nodes: NodeList): Map<string, NodeList[number]> {
  let index = indexes.get(nodes);
  if (!index) {
    index = new Map(nodes.map((n) => [n.id, n]));
    indexes.set(nodes, index);
  }
  return index;
}

/**
 * Names bound by replicated containers around a node, as one string so the selector result is
 * stable: a node re-renders when its own data or its containers' replication changes, not on
 * every move of some other node.
 */
function boundNames(id: string) {
  return (s: { nodes: NodeList }) => {
    const byId = indexOf(s.nodes);
    const names: string[] = [];
    const seen = new Set<string>([id]);
    for (let p = byId.get(id)?.parentId; p && !seen.has(p); ) {
      seen.add(p);
      const parent = byId.get(p);
      const r = replicateOf(parent);
      if (r) names.push(r.as);
      p = parent?.parentId;
    }
    return names.join('\u0000');
  };
}

/** The node's ports for its current data; tells React Flow when the handles change. */
export function usePorts(id: string, type: string, data: Record<string, unknown>): NodePorts {
  const bound = useEditor(boundNames(id));
  // Data bound to a template parameter reads its default: a new default may change the ports.
  const params = useEditor((s) => s.meta.params);
  // A sub-society's ports are its library graph's: they change with the library.
  const graphs = useEditor((s) => s.meta.graphs);
  const ports = useMemo(() => {
    void params;
    void graphs;
    const own = specPorts({ id, type, data });
    if (!bound) return own;
    const names = new Set(bound.split('\u0000'));
    return { ...own, inputs: own.inputs.filter((p) => !(p.required && names.has(p.name))) };
  }, [id, type, data, bound, params, graphs]);
  const signature = [...ports.inputs, ...ports.outputs]
    .map((p) => `${p.name}:${p.modality}`)
    .join('|');
  const updateNodeInternals = useUpdateNodeInternals();
  // Handles that appear or vanish (an agent gaining a slot) must be re-measured, or edges
  // would attach to where the old ones were. Not on mount: React Flow measures a new node's
  // handles itself, and asking again costs a store update and a canvas render per node, which
  // made opening a 1,000-node document freeze the page for minutes (bench/editor.ts).
  const measuredSignature = useRef(signature);
  useEffect(() => {
    if (measuredSignature.current === signature) return;
    measuredSignature.current = signature;
    updateNodeInternals(id);
  }, [id, signature, updateNodeInternals]);
  return ports;
}
