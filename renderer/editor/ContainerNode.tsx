import { type NodeProps, NodeResizer } from '@xyflow/react';
import { memo, useContext } from 'react';
import { isCollapsedData } from '../model/collapse-rule.ts';
import type { FlowNode } from '../model/document.ts';
import { parseNodeData, replicateOf, specHook } from '../model/ports.ts';
import { specOf } from '../model/registry.ts';
import { pushHistory, setCollapsed } from '../store.ts';
import { CardStatus, CollapsedBody, useCardHandles, useCardState } from './CollapsedCard.tsx';
import { sameCard, ZoomedOut } from './LodEdges.tsx';
import { StatusLabel, useRunState } from './NodeStatus.tsx';
import { viewOf } from './nodeViews.ts';
import { PortRow } from './PortHandle.tsx';
import { ReplicaBadge } from './ReplicaBadge.tsx';
import { summaryOf } from './SocietyNode.tsx';
import { usePorts } from './usePorts.ts';

/**
 * Loop containers (a mindstorm) and groups: React Flow parent nodes whose children are the
 * nodes with this `parentId`. The header carries the type's card view beside the title (first,
 * so a narrow container does not cut it off) and its summary, as a card does; outputs
 * sit in a strip along the bottom edge, below the members. Collapsed (collapse-rule.ts), the
 * container is a card: its copies, its members' names, and a handle for each member port an
 * edge from outside reaches.
 */
function ContainerNodeView(props: NodeProps<FlowNode>) {
  return useContext(ZoomedOut) ? <ContainerBox {...props} /> : <ContainerCard {...props} />;
}

/** The container zoomed out: its frame and its title (lod.css), no header row and no ports. */
function ContainerBox({ id, type, data, selected }: NodeProps<FlowNode>) {
  const spec = specOf(type);
  const { run } = useRunState(id);
  const collapsed = isCollapsedData(data);
  const cardState = useCardState(id, collapsed);
  const state = collapsed ? cardState : run?.state;
  const label = typeof data.label === 'string' && data.label ? data.label : id;
  const classes = [
    'container-node',
    'lod-box',
    `container-${spec?.container ?? 'group'}`,
    collapsed ? 'collapsed' : '',
    selected ? 'selected' : '',
    state ? `run-${state}` : '',
  ];
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid={`node-${id}`}
      data-state={state}
      data-title={label}
    />
  );
}

function ContainerCard({ id, type, data, selected }: NodeProps<FlowNode>) {
  const spec = specOf(type);
  const ports = usePorts(id, type, data);
  const { run, breakpoint } = useRunState(id);
  const replicate = replicateOf({ id, data });
  const parsed = parseNodeData(type, data);
  const summary = parsed.ok ? summaryOf(spec, parsed.data) : undefined;
  const Card = viewOf(type)?.card;
  const label = typeof data.label === 'string' && data.label ? data.label : id;
  // The type's own labels (a mindstorm's rounds and structure), from its `badges` hook.
  const badges = specHook({ id, type, data }, 'badges') ?? [];
  const collapsed = isCollapsedData(data);
  useCardHandles(id, collapsed);
  // Collapsed, the card shows what its members are doing.
  const cardState = useCardState(id, collapsed);
  const state = collapsed ? cardState : run?.state;
  const classes = [
    'container-node',
    `container-${spec?.container ?? 'group'}`,
    collapsed ? 'collapsed' : '',
    selected ? 'selected' : '',
    state ? `run-${state}` : '',
    !spec || !parsed.ok ? 'invalid' : '',
  ];
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid={`node-${id}`}
      data-state={state}
      // Zoomed out, the card shows its title alone, large (lod.css).
      data-title={label}
    >
      <NodeResizer
        isVisible={selected && !collapsed}
        minWidth={220}
        minHeight={140}
        onResizeStart={() => pushHistory()}
        color="var(--accent)"
      />
      <div className="container-header">
        <button
          type="button"
          className="collapse-toggle nodrag"
          data-testid={`collapse-${id}`}
          aria-expanded={!collapsed}
          aria-label={collapsed ? `Open ${id} to its members` : `Collapse ${id} to one card`}
          title={collapsed ? 'Open to show its members' : 'Collapse to one card'}
          onClick={(e) => {
            e.stopPropagation();
            setCollapsed(id, !collapsed);
          }}
        >
          {collapsed ? '▸' : '▾'}
        </button>
        <span className="node-kind">{spec?.title ?? type}</span>
        <span className="container-title" title={id}>
          {label}
          {label !== id ? <span className="node-id">{id}</span> : null}
        </span>
        {Card && parsed.ok ? <Card id={id} data={parsed.data} /> : null}
        {badges.map((b) => (
          <span
            key={b.testId ?? `label:${b.label}`}
            className={b.testId ? `badge badge-${b.testId}` : 'badge'}
            data-testid={b.testId ? `${b.testId}-${id}` : undefined}
          >
            {b.label}
          </span>
        ))}
        {summary ? <span className="node-summary">{summary}</span> : null}
        {spec && !parsed.ok ? (
          <span
            className="node-problem"
            title={parsed.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n')}
          >
            {parsed.issues.length} problem{parsed.issues.length === 1 ? '' : 's'} in data
          </span>
        ) : null}
        {replicate ? <ReplicaBadge id={id} items={replicate.items} as={replicate.as} /> : null}
        {breakpoint ? <span className="breakpoint-dot" role="img" aria-label="breakpoint" /> : null}
        {collapsed ? cardState ? <CardStatus state={cardState} /> : null : <StatusLabel id={id} />}
      </div>
      {collapsed ? <CollapsedBody id={id} items={replicate?.items} /> : null}
      {ports.inputs.length ? (
        <div className="container-ports container-ports-in">
          {ports.inputs.map((p) => (
            <PortRow key={p.name} nodeId={id} port={p} side="in" />
          ))}
        </div>
      ) : null}
      {ports.outputs.length ? (
        <div className="container-ports container-ports-out">
          {ports.outputs.map((p) => (
            <PortRow key={p.name} nodeId={id} port={p} side="out" footer />
          ))}
        </div>
      ) : null}
    </div>
  );
}

export const ContainerNode = memo(ContainerNodeView, sameCard);
