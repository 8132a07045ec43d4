import type { NodeProps } from '@xyflow/react';
import { memo, useContext } from 'react';
import type { NodeSpec } from '../../app/node-sdk/define.ts';
import type { FlowNode } from '../model/document.ts';
import { parseNodeData, replicateOf } from '../model/ports.ts';
import { specOf } from '../model/registry.ts';
import { toolOwners } from '../model/tool-wires.ts';
import { useEditor } from '../store.ts';
import { CardValue, fewWordsOf, useCardSummary } from './CardValue.tsx';
import { sameCard, ZoomedOut } from './LodEdges.tsx';
import { StatusLabel, useRunState } from './NodeStatus.tsx';
import { viewOf } from './nodeViews.ts';
import { PortRow } from './PortHandle.tsx';
import { ReplicaBadge } from './ReplicaBadge.tsx';
import { usePorts } from './usePorts.ts';

/**
 * The type's own words for what the node will do (its spec's `summary`), from valid data only.
 * A summary that throws shows nothing rather than taking the canvas down.
 */
export function summaryOf(spec: NodeSpec<unknown> | undefined, data: unknown): string | undefined {
  try {
    return spec?.summary?.(data) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every node type that is not a container: at full detail and with titles, ports from the spec,
 * a summary, badges; zoomed out, a box with its title (SocietyBox).
 */
function SocietyNodeView(props: NodeProps<FlowNode>) {
  return useContext(ZoomedOut) ? <SocietyBox {...props} /> : <SocietyCard {...props} />;
}

/**
 * The card zoomed out: a box of the card's measured size, its title and few words drawn by
 * lod.css from its attributes, its run state as its outline. No port rows and no handles:
 * they are most of what the browser lays out and paints on every frame of a pan.
 */
function SocietyBox({ id, type, data, selected }: NodeProps<FlowNode>) {
  const spec = specOf(type);
  const { run } = useRunState(id);
  const parsed = parseNodeData(type, data);
  const label = typeof data.label === 'string' && data.label ? data.label : id;
  const fewWords = fewWordsOf(useCardSummary(id, type, parsed.ok ? parsed.data : undefined));
  const classes = [
    'society-node',
    'lod-box',
    `type-${type}`,
    selected ? 'selected' : '',
    run ? `run-${run.state}` : '',
    !spec || !parsed.ok ? 'invalid' : '',
    replicateOf({ id, data }) ? 'replicated' : '',
  ];
  return (
    <div
      className={classes.filter(Boolean).join(' ')}
      data-testid={`node-${id}`}
      data-state={run?.state}
      data-title={label}
      data-lod-value={fewWords}
    />
  );
}

function SocietyCard({ id, type, data, selected, parentId }: NodeProps<FlowNode>) {
  const spec = specOf(type);
  const ports = usePorts(id, type, data);
  const { run, breakpoint } = useRunState(id);
  const parsed = parseNodeData(type, data);
  const replicate = replicateOf({ id, data });
  const label = typeof data.label === 'string' && data.label ? data.label : id;
  const stage = typeof data.stage === 'string' ? data.stage : undefined;
  const summary = parsed.ok ? summaryOf(spec, parsed.data) : undefined;
  const Card = viewOf(type)?.card;
  // Offered as a tool by a wire: it runs when its owner calls it, not in the flow.
  const toolOf = useEditor((s) => toolOwners(id, s.nodes, s.edges).join(', '));
  const card = useCardSummary(id, type, parsed.ok ? parsed.data : undefined);
  const fewWords = fewWordsOf(card);
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
      // Zoomed out, the card shows its title alone, large (lod.css).
      data-title={label}
      // …and, after a run, a few words of its latest value.
      data-lod-value={fewWords}
    >
      <div className="node-header">
        <span className={`node-kind group-${spec?.group ?? 'unknown'}`}>{spec?.title ?? type}</span>
        {replicate ? <ReplicaBadge id={id} items={replicate.items} as={replicate.as} /> : null}
        {stage ? <span className="badge badge-stage">{stage}</span> : null}
        {toolOf ? (
          <span
            className="badge badge-tool"
            data-testid={`tool-of-${id}`}
            title={`Offered as a tool to ${toolOf}: it runs once per call, with the arguments the model writes`}
          >
            tool of {toolOf}
          </span>
        ) : null}
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
      {summary ? <div className="node-summary">{summary}</div> : null}
      {Card && parsed.ok ? <Card id={id} data={parsed.data} /> : null}
      {card ? (
        <CardValue
          id={id}
          card={card}
          copies={replicate?.items.length}
          compact={parentId !== undefined}
        />
      ) : null}
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

export const SocietyNode = memo(SocietyNodeView, sameCard);
