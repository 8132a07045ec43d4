import {
  BaseEdge,
  type Edge,
  EdgeLabelRenderer,
  type EdgeProps,
  Handle,
  type Node,
  type NodeProps,
  Position,
} from '@xyflow/react';
import { memo } from 'react';
import type { MachineEdgeKind, MachineNode } from './graph.ts';
import type { Highlight } from './highlight.ts';
import type { Box, Point } from './layout.ts';

export interface BoxData extends Record<string, unknown> {
  box: MachineNode;
  highlight?: Highlight;
  note?: string;
}

export type BoxNode = Node<BoxData>;

export interface RouteData extends Record<string, unknown> {
  points: Point[];
  label?: Box;
  text: string;
  kind: MachineEdgeKind;
}

export type RouteEdge = Edge<RouteData>;

const HIGHLIGHT_LABEL: Record<Highlight, string> = {
  active: 'running',
  paused: 'held',
  done: 'done',
  failed: 'failed',
  skipped: 'skipped',
};

/** Arrows are routed by ELK, so handles only anchor them; nobody can drag from one. */
function Anchors() {
  return (
    <>
      <Handle type="target" position={Position.Top} isConnectable={false} className="mv-anchor" />
      <Handle
        type="source"
        position={Position.Bottom}
        isConnectable={false}
        className="mv-anchor"
      />
    </>
  );
}

function classes(data: BoxData, kind: string): string {
  const { box, highlight } = data;
  return [
    'mv-box',
    `mv-${kind}`,
    box.initial ? 'mv-initial' : '',
    box.final ? 'mv-final' : '',
    highlight ? `mv-hl-${highlight}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function Status({ data }: { data: BoxData }) {
  const { box, highlight, note } = data;
  return (
    <>
      {highlight ? (
        <span
          className={`mv-badge mv-badge-${highlight}`}
          data-testid={`machine-highlight-${box.id}`}
        >
          {HIGHLIGHT_LABEL[highlight]}
        </span>
      ) : null}
      {note ? <span className="mv-note">{note}</span> : null}
    </>
  );
}

/** The name line; a task shows its run state on a line of its own (tasks are narrow). */
function Title({ data }: { data: BoxData }) {
  const { box } = data;
  const task = box.kind === 'task';
  return (
    <>
      <div className="mv-title">
        {box.initial ? (
          <span className="mv-initial-mark" title="initial state">
            ●
          </span>
        ) : null}
        <span className="mv-name">{box.label}</span>
        {box.replicas !== undefined ? <span className="mv-badge">×{box.replicas}</span> : null}
        {box.final ? <span className="mv-badge">final</span> : null}
        {task ? null : <Status data={data} />}
      </div>
      {task ? (
        <div className="mv-title mv-task-status">
          <Status data={data} />
        </div>
      ) : null}
    </>
  );
}

function Details({ lines }: { lines: string[] }) {
  if (lines.length === 0) return null;
  return (
    <ul className="mv-details">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

/** A machine, or a state with states or tasks inside: a titled frame. */
export const GroupBox = memo(function GroupBox({ data }: NodeProps<BoxNode>) {
  const kind = data.box.kind === 'machine' ? 'machine' : 'group';
  return (
    <div className={classes(data, kind)} data-testid={`machine-box-${data.box.id}`}>
      <Anchors />
      {kind === 'machine' ? <span className="mv-kind">machine</span> : null}
      <Title data={data} />
      <Details lines={data.box.details} />
    </div>
  );
});

/** A state without children, or a scheduled node (a task). */
export const LeafBox = memo(function LeafBox({ data }: NodeProps<BoxNode>) {
  return (
    <div
      className={classes(data, data.box.kind)}
      data-testid={`machine-box-${data.box.id}`}
      title={data.box.kind === 'task' ? `node ${data.box.node}: click to select it` : undefined}
    >
      <Anchors />
      <Title data={data} />
      <Details lines={data.box.details} />
    </div>
  );
});

/** An arrow along ELK's route, with its label where ELK placed it. */
export const RouteArrow = memo(function RouteArrow({
  id,
  data,
  markerEnd,
  style,
}: EdgeProps<RouteEdge>) {
  const points = data?.points ?? [];
  if (points.length < 2) return null;
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x} ${p.y}`).join(' ');
  const label = data?.label;
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} />
      {label && data?.text ? (
        <EdgeLabelRenderer>
          <div
            className={`mv-edge-label mv-edge-${data.kind}`}
            style={{
              transform: `translate(${label.x}px, ${label.y}px)`,
              minWidth: label.width,
            }}
          >
            {data.text}
          </div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
});

export const boxTypes = { group: GroupBox, leaf: LeafBox };
export const routeTypes = { route: RouteArrow };
