import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { FlowNode } from '../model/document.ts';
import { parseNodeData, replicateOf } from '../model/ports.ts';
import { specOf } from '../model/registry.ts';
import { StatusLabel, useRunState } from './NodeStatus.tsx';
import { PortRow } from './PortHandle.tsx';
import { ReplicaBadge } from './ReplicaBadge.tsx';
import { usePorts } from './usePorts.ts';

/** A short line under the title: what the node will do, read from its data. */
function summary(type: string, data: Record<string, unknown>): string | undefined {
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const firstLine = (v: unknown) => s(v)?.split('\n')[0]?.slice(0, 60);
  switch (type) {
    case 'agent':
      return [s(data.model), firstLine(data.prompt)].filter(Boolean).join(' · ');
    case 'input':
      return `${s(data.name) ?? '?'} (${s(data.modality) ?? 'text'})`;
    case 'output':
      return s(data.name);
    case 'human':
      return [s(data.name), firstLine(data.prompt)].filter(Boolean).join(' · ');
    case 'vote':
      return `${s(data.rule) ?? 'plurality'}, ties: ${s(data.tieBreak) ?? 'first'}`;
    case 'summarize':
      return s(data.mode) === 'concatenate' ? 'concatenate' : (s(data.model) ?? 'model');
    case 'transform':
      return firstLine(data.template);
    default:
      return firstLine(data.prompt) ?? firstLine(data.template) ?? s(data.model);
  }
}

/** Every node type that is not a container: ports from the spec, a summary, badges. */
function SocietyNodeView({ id, type, data, selected }: NodeProps<FlowNode>) {
  const spec = specOf(type);
  const ports = usePorts(id, type, data);
  const { run, breakpoint } = useRunState(id);
  const parsed = parseNodeData(type, data);
  const replicate = replicateOf({ id, data });
  const label = typeof data.label === 'string' && data.label ? data.label : id;
  const stage = typeof data.stage === 'string' ? data.stage : undefined;
  const classes = [
    'society-node',
    `type-${type}`,
    selected ? 'selected' : '',
    run ? `run-${run.state}` : '',
    !spec || !parsed.ok ? 'invalid' : '',
    replicate ? 'replicated' : '',
  ];
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid={`node-${id}`}
      data-state={run?.state}
    >
      <div className="node-header">
        <span className={`node-kind group-${spec?.group ?? 'unknown'}`}>{spec?.title ?? type}</span>
        {replicate ? <ReplicaBadge id={id} items={replicate.items} as={replicate.as} /> : null}
        {stage ? <span className="badge badge-stage">{stage}</span> : null}
        {breakpoint ? (
          <span
            className="breakpoint-dot"
            role="img"
            aria-label="breakpoint"
            title="Breakpoint: the run pauses before this node"
          />
        ) : null}
      </div>
      <div className="node-title" title={id}>
        {label}
        {label !== id ? <span className="node-id">{id}</span> : null}
      </div>
      {(() => {
        const text = summary(type, data);
        return text ? <div className="node-summary">{text}</div> : null;
      })()}
      {!spec ? <div className="node-problem">unknown node type "{type}"</div> : null}
      {spec && !parsed.ok ? (
        <div
          className="node-problem"
          title={parsed.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n')}
        >
          {parsed.issues.length} problem{parsed.issues.length === 1 ? '' : 's'} in data
        </div>
      ) : null}
      {ports.inputs.length + ports.outputs.length > 0 ? (
        <div className="ports">
          {ports.inputs.map((p) => (
            <PortRow key={`in-${p.name}`} nodeId={id} port={p} side="in" />
          ))}
          {ports.outputs.map((p) => (
            <PortRow key={`out-${p.name}`} nodeId={id} port={p} side="out" />
          ))}
        </div>
      ) : null}
      <StatusLabel id={id} />
    </div>
  );
}

export const SocietyNode = memo(SocietyNodeView);
