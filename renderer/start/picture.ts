/**
 * A template's picture for the gallery, drawn from its document: one box per top-level node at
 * its place on the canvas (a container as big as what it holds), and a line for each pair of
 * top-level nodes wired together, directly or through what their containers hold. Pure: the
 * card turns the model into SVG, coloured by each node's palette group through CSS variables.
 */

/** What the picture reads of a document: node places and types, and who is wired to whom. */
export interface PictureSource {
  nodes: ReadonlyArray<{
    id: string;
    type: string;
    position: { x: number; y: number };
    parentId?: string | undefined;
  }>;
  edges: ReadonlyArray<{ source: string; target: string }>;
}

export interface PictureBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The node type's palette group (`Minds`), or `unknown` for a type this page lacks. */
  group: string;
  /** It holds other nodes (drawn as a frame). */
  container: boolean;
}

export interface PictureModel {
  /** The SVG's viewBox: every box, with a margin. */
  viewBox: { x: number; y: number; width: number; height: number };
  boxes: PictureBox[];
  /** What the containers hold, at their places on the canvas, drawn faintly inside them. */
  inner: PictureBox[];
  lines: Array<{ from: string; to: string; x1: number; y1: number; x2: number; y2: number }>;
}

/** About a node card's size on the canvas at zoom 1. */
export const CARD = { width: 180, height: 64 };
const PAD = 20;

/** The picture of `doc`; `groupOf` names a type's palette group. */
export function pictureOf(
  doc: PictureSource,
  groupOf: (type: string) => string | undefined,
): PictureModel {
  const byId = new Map(doc.nodes.map((n) => [n.id, n]));
  const children = new Map<string, string[]>();
  for (const n of doc.nodes) {
    if (n.parentId && byId.has(n.parentId)) {
      children.set(n.parentId, [...(children.get(n.parentId) ?? []), n.id]);
    }
  }
  // A node's size: a card, or a container's frame around its members (positions relative to it).
  const sizes = new Map<string, { width: number; height: number }>();
  const sizeOf = (id: string, seen: Set<string>): { width: number; height: number } => {
    const known = sizes.get(id);
    if (known) return known;
    let size = { ...CARD };
    const members = children.get(id);
    if (members && !seen.has(id)) {
      seen.add(id);
      for (const m of members) {
        const node = byId.get(m);
        if (!node) continue;
        const inner = sizeOf(m, seen);
        size = {
          width: Math.max(size.width, node.position.x + inner.width + PAD),
          height: Math.max(size.height, node.position.y + inner.height + PAD),
        };
      }
    }
    sizes.set(id, size);
    return size;
  };
  // The top-level node a node sits in (itself at the top); a cycle of parents stops where it began.
  const topOf = (id: string): string => {
    let current = id;
    const seen = new Set<string>();
    for (;;) {
      const parent = byId.get(current)?.parentId;
      if (!parent || !byId.has(parent) || seen.has(parent)) return current;
      seen.add(current);
      current = parent;
    }
  };

  const boxes: PictureBox[] = doc.nodes
    .filter((n) => !n.parentId || !byId.has(n.parentId))
    .map((n) => {
      const size = sizeOf(n.id, new Set());
      return {
        id: n.id,
        x: n.position.x,
        y: n.position.y,
        ...size,
        group: groupOf(n.type) ?? 'unknown',
        container: children.has(n.id),
      };
    });
  const boxById = new Map(boxes.map((b) => [b.id, b]));
  const inner: PictureBox[] = [];
  const placeMembers = (parent: { id: string; x: number; y: number }, seen: Set<string>) => {
    if (seen.has(parent.id)) return;
    seen.add(parent.id);
    for (const m of children.get(parent.id) ?? []) {
      const node = byId.get(m);
      if (!node) continue;
      const box: PictureBox = {
        id: m,
        x: parent.x + node.position.x,
        y: parent.y + node.position.y,
        ...sizeOf(m, new Set()),
        group: groupOf(node.type) ?? 'unknown',
        container: children.has(m),
      };
      inner.push(box);
      placeMembers(box, seen);
    }
  };
  for (const b of boxes) placeMembers(b, new Set());

  const lines: PictureModel['lines'] = [];
  const drawn = new Set<string>();
  for (const edge of doc.edges) {
    if (!byId.has(edge.source) || !byId.has(edge.target)) continue;
    const from = boxById.get(topOf(edge.source));
    const to = boxById.get(topOf(edge.target));
    if (!from || !to || from === to || drawn.has(`${from.id}\u0000${to.id}`)) continue;
    drawn.add(`${from.id}\u0000${to.id}`);
    lines.push({
      from: from.id,
      to: to.id,
      x1: from.x + from.width,
      y1: from.y + from.height / 2,
      x2: to.x,
      y2: to.y + to.height / 2,
    });
  }

  if (boxes.length === 0)
    return { viewBox: { x: 0, y: 0, width: 1, height: 1 }, boxes, inner, lines };
  const left = Math.min(...boxes.map((b) => b.x)) - PAD;
  const top = Math.min(...boxes.map((b) => b.y)) - PAD;
  const right = Math.max(...boxes.map((b) => b.x + b.width)) + PAD;
  const bottom = Math.max(...boxes.map((b) => b.y + b.height)) + PAD;
  return {
    viewBox: { x: left, y: top, width: right - left, height: bottom - top },
    boxes,
    inner,
    lines,
  };
}
