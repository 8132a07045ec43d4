/**
 * The mindstorm's part of the inspector: a small drawing of who sees whom (its topology) over
 * its members, one dot per copy. Found like the spec (renderer/editor/nodeViews.ts).
 */
import { useShallow } from 'zustand/react/shallow';
import type { NodeView, NodeViewProps } from '../../renderer/editor/nodeViews.ts';
import { replicateOf } from '../../renderer/model/ports.ts';
import { useEditor } from '../../renderer/store.ts';
import type { MindstormData } from './rights.ts';
import { memberName, topologyLabel, topologyProblem, visibility } from './topology.ts';

/** Past this many members the drawing would be a blot: the caption says it alone. */
const MOST_DRAWN = 24;
const SIZE = 140;

function TopologyDiagram({ data }: NodeViewProps<MindstormData>) {
  // How many copies each member runs as (0: a single agent), read from the canvas.
  const copies = useEditor(
    useShallow((s) =>
      data.members.map((m) => {
        const replicate = replicateOf(s.nodes.find((n) => n.id === m));
        return replicate ? replicate.items.length : 0;
      }),
    ),
  );
  const names = data.members.flatMap((m, i) =>
    copies[i] ? Array.from({ length: copies[i] }, (_, r) => memberName(m, r)) : [m],
  );
  if (names.length === 0) return null;
  const problem = topologyProblem(data, names);
  const sees = visibility(data, names);
  const others = [...sees.values()].reduce((sum, set) => sum + set.size - 1, 0) / names.length;
  const caption = problem
    ? problem
    : `${names.length} member${names.length === 1 ? '' : 's'}, each sees ${formatCount(others)} other${others === 1 ? '' : 's'}`;
  const centre = SIZE / 2;
  const radius = SIZE / 2 - 12;
  const at = (i: number) => {
    const angle = (2 * Math.PI * i) / names.length - Math.PI / 2;
    return { x: centre + radius * Math.cos(angle), y: centre + radius * Math.sin(angle) };
  };
  const lines: Array<{ key: string; a: number; b: number }> = [];
  names.forEach((name, a) => {
    names.forEach((other, b) => {
      // One line per pair, drawn when either sees the other.
      if (b <= a) return;
      if (sees.get(name)?.has(other) || sees.get(other)?.has(name)) {
        lines.push({ key: `${name}|${other}`, a, b });
      }
    });
  });
  return (
    <section className="muted small" aria-label="Topology" data-testid="mindstorm-topology">
      <p>
        Who sees whom: <strong>{topologyLabel(data)}</strong> · {caption}
      </p>
      {problem || names.length > MOST_DRAWN ? null : (
        <svg
          width={SIZE}
          height={SIZE}
          viewBox={`0 0 ${SIZE} ${SIZE}`}
          role="img"
          aria-label={`${topologyLabel(data)} over ${names.join(', ')}`}
        >
          {lines.map(({ key, a, b }) => (
            <line
              key={key}
              x1={at(a).x}
              y1={at(a).y}
              x2={at(b).x}
              y2={at(b).y}
              style={{ stroke: 'var(--edge)', strokeWidth: 1.5 }}
            />
          ))}
          {names.map((name, i) => (
            <circle key={name} cx={at(i).x} cy={at(i).y} r={5} style={{ fill: 'var(--accent)' }}>
              <title>{name}</title>
            </circle>
          ))}
        </svg>
      )}
    </section>
  );
}

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

export const view: NodeView<MindstormData> = { inspector: TopologyDiagram };
