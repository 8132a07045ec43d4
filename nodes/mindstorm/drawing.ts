/**
 * The drawing of a mindstorm's topology, shared by its inspector and its card (view.tsx): the
 * members as dots on a circle, one line per pair where either sees the other. Pure, so it is
 * tested without a page.
 */
import { type TopologyData, topologyLabel, topologyProblem, visibility } from './topology.ts';

/** Past this many members the drawing would be a blot: a caption says it alone. */
export const MOST_DRAWN = 24;

/** A member's dot, in the drawing's own coordinates (0 to `size`). */
export interface Dot {
  name: string;
  x: number;
  y: number;
}

/** A line between two members who see each other (or one sees the other). */
export interface Link {
  key: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface TopologyDrawing {
  dots: Dot[];
  lines: Link[];
}

/**
 * The dots and lines of the topology over these members in a square of `size`, the dots `inset`
 * from its edge, the first at the top and the rest clockwise; undefined when the topology cannot
 * be laid over them or there are too many to draw (the caption says why).
 */
export function topologyDrawing(
  data: TopologyData,
  names: string[],
  size: number,
  inset: number,
): TopologyDrawing | undefined {
  if (names.length === 0 || names.length > MOST_DRAWN || topologyProblem(data, names)) {
    return undefined;
  }
  const centre = size / 2;
  const radius = size / 2 - inset;
  const dots = names.map((name, i) => {
    const angle = (2 * Math.PI * i) / names.length - Math.PI / 2;
    return { name, x: centre + radius * Math.cos(angle), y: centre + radius * Math.sin(angle) };
  });
  const sees = visibility(data, names);
  const lines: Link[] = [];
  dots.forEach((a, i) => {
    for (const b of dots.slice(i + 1)) {
      if (sees.get(a.name)?.has(b.name) || sees.get(b.name)?.has(a.name)) {
        lines.push({ key: `${a.name}|${b.name}`, x1: a.x, y1: a.y, x2: b.x, y2: b.y });
      }
    }
  });
  return { dots, lines };
}

/** The topology in a sentence, for a drawing's title: `ring: each member sees its two neighbours`. */
export function topologyDescription(data: TopologyData): string {
  const label = topologyLabel(data);
  switch (data.topology) {
    case 'full':
      return `${label}: each member sees every other member`;
    case 'star':
      return `${label}: the first member sees everyone, the others see the first`;
    case 'ring':
      return `${label}: each member sees its two neighbours`;
    case 'k-regular':
      return `${label}: each member sees ${data.k} other${data.k === 1 ? '' : 's'}, drawn at random`;
    case 'adjacency':
      return `${label}: each member sees the members listed for it`;
  }
}
