/**
 * The mindstorm's topology, drawn: over its members (one dot per copy), a line for each pair
 * where one sees the other. Large in the inspector with a caption; small on the card, in place
 * of a summary in words, at full detail only (the canvas hides a container header's parts when
 * zoomed out, lod.css). Found like the spec (renderer/editor/nodeViews.ts).
 */
import { memo, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { NodeView, NodeViewProps } from '../../renderer/editor/nodeViews.ts';
import { replicateOf } from '../../renderer/model/ports.ts';
import { useEditor } from '../../renderer/store.ts';
import { type TopologyDrawing, topologyDescription, topologyDrawing } from './drawing.ts';
import type { MindstormData } from './rights.ts';
import { memberName, topologyLabel, topologyProblem, visibility } from './topology.ts';

const INSPECTOR_SIZE = 140;
/** Fits the container's header row without making it taller. */
const CARD_SIZE = 22;

/** The members' names, one per copy of a replicated member, read from the canvas. */
function useMemberNames(members: string[]): string[] {
  // How many copies each member runs as (0: a single agent). Compared by value (the same array
  // while it is equal), so moving or editing other nodes does not redraw.
  const copies = useEditor(
    useShallow((s) =>
      members.map((m) => {
        const replicate = replicateOf(s.nodes.find((n) => n.id === m));
        return replicate ? replicate.items.length : 0;
      }),
    ),
  );
  return useMemo(
    () =>
      members.flatMap((m, i) =>
        copies[i] ? Array.from({ length: copies[i] }, (_, r) => memberName(m, r)) : [m],
      ),
    [members, copies],
  );
}

/** The drawing in a square of `size`, computed again only when the data or members change. */
function useDrawing(data: MindstormData, names: string[], size: number) {
  return useMemo(
    () => topologyDrawing(data, names, size, size > SMALL ? 12 : 3),
    [data, names, size],
  );
}

/** Up to this size a drawing is a glyph: thin lines, small dots, no title per dot. */
const SMALL = 40;

interface DrawingProps {
  drawing: TopologyDrawing;
  size: number;
  /** Its accessible name. */
  label: string;
  testId?: string;
}

/** The dots on a circle and the lines between them. */
function TopologySvg({ drawing, size, label, testId }: DrawingProps) {
  const small = size <= SMALL;
  return (
    <svg
      width={size}
      height={size}
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={label}
      data-testid={testId}
      style={{ flexShrink: 0 }}
    >
      <title>{label}</title>
      {drawing.lines.map(({ key, ...at }) => (
        <line
          key={key}
          {...at}
          style={{ stroke: 'var(--edge)', strokeWidth: small ? 0.75 : 1.5 }}
        />
      ))}
      {drawing.dots.map(({ name, x, y }) => (
        <circle key={name} cx={x} cy={y} r={small ? 1.75 : 5} style={{ fill: 'var(--accent)' }}>
          {small ? null : <title>{name}</title>}
        </circle>
      ))}
    </svg>
  );
}

function TopologyInspector({ data }: NodeViewProps<MindstormData>) {
  const names = useMemberNames(data.members);
  const drawing = useDrawing(data, names, INSPECTOR_SIZE);
  if (names.length === 0) return null;
  const problem = topologyProblem(data, names);
  const sees = visibility(data, names);
  const others = [...sees.values()].reduce((sum, set) => sum + set.size - 1, 0) / names.length;
  const caption = problem
    ? problem
    : `${names.length} member${names.length === 1 ? '' : 's'}, each sees ${formatCount(others)} other${others === 1 ? '' : 's'}`;
  return (
    <section className="muted small" aria-label="Topology" data-testid="mindstorm-topology">
      <p>
        Who sees whom: <strong>{topologyLabel(data)}</strong> · {caption}
      </p>
      {drawing ? (
        <TopologySvg
          drawing={drawing}
          size={INSPECTOR_SIZE}
          label={`${topologyLabel(data)} over ${names.join(', ')}`}
        />
      ) : null}
    </section>
  );
}

/**
 * On the card: the drawing alone, named by its title; in words when it cannot be drawn (a
 * topology that does not fit its members, too many members to draw).
 */
function TopologyCardView({ id, data }: NodeViewProps<MindstormData>) {
  const names = useMemberNames(data.members);
  const drawing = useDrawing(data, names, CARD_SIZE);
  const description = topologyDescription(data);
  if (drawing) {
    return (
      <TopologySvg
        drawing={drawing}
        size={CARD_SIZE}
        label={description}
        testId={`topology-${id}`}
      />
    );
  }
  return (
    <span className="node-summary" title={description}>
      topology {topologyLabel(data)}
    </span>
  );
}

// The card's props are the node's id and its parsed data, which the canvas keeps by reference
// while the node is unchanged: panning and zooming do not redraw it.
const TopologyCard = memo(TopologyCardView);

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

export const view: NodeView<MindstormData> = {
  inspector: TopologyInspector,
  card: TopologyCard,
};
