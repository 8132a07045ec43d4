import { type NodeProps, NodeResizer } from '@xyflow/react';
import { memo } from 'react';
import type { FlowNode } from '../model/document.ts';
import { parseNodeData, replicateOf, specHook } from '../model/ports.ts';
import { specOf } from '../model/registry.ts';
import { pushHistory } from '../store.ts';
import { StatusLabel, useRunState } from './NodeStatus.tsx';
import { PortRow } from './PortHandle.tsx';
import { ReplicaBadge } from './ReplicaBadge.tsx';
import { summaryOf } from './SocietyNode.tsx';
import { usePorts } from './usePorts.ts';

/**
 * Loop containers (a mindstorm) and groups: React Flow parent nodes whose children are the
 * nodes with this `parentId`. The header carries the type's summary, as a card does; outputs
 * sit in a strip along the bottom edge, below the members.
 */
function ContainerNodeView({ id, type, data, selected }: NodeProps<FlowNode>) {
  const spec = specOf(type);
  const ports = usePorts(id, type, data);
  const { run, breakpoint } = useRunState(id);
  const replicate = replicateOf({ id, data });
  const parsed = parseNodeData(type, data);
  const summary = parsed.ok ? summaryOf(spec, parsed.data) : undefined;
  const label = typeof data.label === 'string' && data.label ? data.label : id;
  // The type's own labels (a mindstorm's rounds and structure), from its `badges` hook.
  const badges = specHook({ id, type, data }, 'badges') ?? [];
  const classes = [
    'container-node',
    `container-${spec?.container ?? 'group'}`,
    selected ? 'selected' : '',
    run ? `run-${run.state}` : '',
    !spec || !parsed.ok ? 'invalid' : '',
  ];
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid={`node-${id}`}
      data-state={run?.state}
    >
      <NodeResizer
        isVisible={selected}
        minWidth={220}
        minHeight={140}
        onResizeStart={() => pushHistory()}
        color="var(--accent)"
      />
      <div className="container-header">
        <span className="node-kind">{spec?.title ?? type}</span>
        <span className="container-title" title={id}>
          {label}
          {label !== id ? <span className="node-id">{id}</span> : null}
        </span>
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
        <StatusLabel id={id} />
      </div>
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

export const ContainerNode = memo(ContainerNodeView);
