import { useUpdateNodeInternals } from '@xyflow/react';
import { useEffect, useMemo, useRef } from 'react';
import type { NodePorts } from '../../app/node-sdk/define.ts';
import { collapsedView, membersOf } from '../model/collapse.ts';
import { type NodeRunState, nodeOfLoop } from '../model/run.ts';
import { isActive } from '../run/controller.ts';
import { type EditorState, useEditor } from '../store.ts';
import { PortRow } from './PortHandle.tsx';

/** How many of the copies' items a collapsed card names before "+N more". */
const ITEMS_SHOWN = 3;

const NO_PORTS: NodePorts = { inputs: [], outputs: [] };

/**
 * The handles a collapsed card shows for its hidden members, as one string so the selector's
 * result is stable: the card re-renders when they change, not on every move elsewhere.
 */
function boundarySignature(id: string) {
  return (s: EditorState) => {
    const ports = collapsedView(s.nodes, s.edges).boundary.get(id);
    return ports ? JSON.stringify(ports) : '';
  };
}

/** A collapsed card's boundary ports (none when it is open). */
export function useBoundaryPorts(id: string): NodePorts {
  const signature = useEditor(boundarySignature(id));
  return useMemo(() => (signature ? (JSON.parse(signature) as NodePorts) : NO_PORTS), [signature]);
}

/**
 * Tells React Flow to measure the card's handles again when it opens or collapses: the handles
 * edges attach to are not the same ones.
 */
export function useCardHandles(id: string, collapsed: boolean): void {
  const signature = useEditor(boundarySignature(id));
  const key = `${collapsed}|${signature}`;
  const measured = useRef(key);
  const updateNodeInternals = useUpdateNodeInternals();
  useEffect(() => {
    if (measured.current === key) return;
    measured.current = key;
    updateNodeInternals(id);
  }, [id, key, updateNodeInternals]);
}

/** The names of a container's members, as one string (a stable selector result). */
function memberNames(id: string) {
  return (s: EditorState) =>
    membersOf(s.nodes, id)
      .map((n) => n.id)
      .join('\u0000');
}

/**
 * The body of a collapsed container: the first items it is replicated over, the members it
 * holds, and a handle for each member port an edge from outside reaches (`questioner.object`).
 */
export function CollapsedBody({ id, items }: { id: string; items: unknown[] | undefined }) {
  const ports = useBoundaryPorts(id);
  const members = useEditor(memberNames(id));
  const names = members ? members.split('\u0000') : [];
  const shown = (items ?? []).slice(0, ITEMS_SHOWN).map(itemText);
  const more = (items?.length ?? 0) - shown.length;
  return (
    <div className="collapsed-body" data-testid={`collapsed-${id}`}>
      {shown.length ? (
        <div className="collapsed-items" title={(items ?? []).map(itemText).join('\n')}>
          <span className="collapsed-items-list">{shown.join(', ')}</span>
          {more > 0 ? <span className="muted collapsed-more">+{more} more</span> : null}
        </div>
      ) : null}
      <div className="collapsed-members" title={names.join(', ')}>
        {names.length === 0
          ? 'no members'
          : `${names.length} member${names.length === 1 ? '' : 's'}: ${names.join(', ')}`}
      </div>
      {ports.inputs.length + ports.outputs.length > 0 ? (
        <div className="ports">
          {ports.inputs.map((p) => (
            <PortRow key={`in-${p.name}`} nodeId={id} port={p} side="in" connectable={false} />
          ))}
          {ports.outputs.map((p) => (
            <PortRow key={`out-${p.name}`} nodeId={id} port={p} side="out" connectable={false} />
          ))}
        </div>
      ) : null}
    </div>
  );
}

function itemText(item: unknown): string {
  return typeof item === 'string' ? item : JSON.stringify(item);
}

/** Which member state a card shows when its members differ: the most telling first. */
const STATE_ORDER: readonly NodeRunState[] = [
  'failed',
  'paused',
  'running',
  'done',
  'skipped',
  'waiting',
];

/**
 * What a collapsed card's members are doing, as one state: a group runs nothing of its own, so
 * its card is running while any member is, done when every member that ran is done.
 */
function cardState(id: string) {
  return (s: EditorState): NodeRunState | '' => {
    const own = s.run.nodes[id]?.state;
    const states = new Set<NodeRunState>(own ? [own] : []);
    const members = membersOf(s.nodes, id);
    for (const member of members) {
      const state = s.run.nodes[member.id]?.state;
      if (state) states.add(state);
    }
    // Held inside the card (at a member, or a round of a loop in it): the card is paused.
    const at = s.run.paused?.at;
    if (at) {
      const held = at.kind === 'round' ? nodeOfLoop(at.loop) : at.node;
      if (held === id || members.some((m) => m.id === held)) return 'paused';
    }
    if (states.has('done') && states.has('waiting') && !states.has('running')) {
      // Some members ran and the rest never will, or have not yet: the run says which.
      return isActive(s.run.status) ? 'running' : 'done';
    }
    return STATE_ORDER.find((state) => states.has(state)) ?? '';
  };
}

/** A collapsed card's state from its members (see cardState), for its outline and label. */
export function useCardState(id: string, collapsed: boolean): NodeRunState | undefined {
  const state = useEditor(collapsed ? cardState(id) : () => '' as const);
  return state || undefined;
}

/** The card's state as a label, as a node's own status reads. */
export function CardStatus({ state }: { state: NodeRunState }) {
  return <span className={`status status-${state}`}>{state}</span>;
}
