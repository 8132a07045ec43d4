/**
 * Lays the machine drawing out with ELK's layered algorithm in two steps: each machine on its
 * own, left to right, nested boxes included (`hierarchyHandling: INCLUDE_CHILDREN`); then the
 * machines themselves, top to bottom, each below the machine that starts it. The arrows from a
 * state or task to the machine it invokes or spawns are drawn through the gap between the two.
 * Machines side by side in one layered pass made a drawing many times wider than high.
 *
 * ELK runs in the page from `elkjs/lib/elk.bundled.js`: that build carries its own in-process
 * worker (no Web Worker, no `eval` or `new Function`), so it works under the studio's
 * Content-Security-Policy (`script-src 'self'`).
 *
 * Sizes are estimated from the text each box shows (the layout runs before anything is drawn),
 * with a monospace-ish width per character that errs on the wide side.
 */
import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk.bundled.js';
import { type MachineEdge, type MachineGraph, type MachineNode, machineNodeId } from './graph.ts';

export interface Box {
  /** Relative to the parent box, as React Flow places child nodes. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface Route {
  /** In the drawing's own (absolute) coordinates. */
  points: Point[];
  label?: Box;
}

export interface MachineLayout {
  boxes: Record<string, Box>;
  routes: Record<string, Route>;
}

const CHAR = 6.6;
const LINE = 15;
/** Room for a group's title and detail lines above its children. */
const HEADER = 26;

/** The text lines a box shows besides its title. */
export function boxLines(node: MachineNode): string[] {
  return node.details;
}

function textWidth(lines: string[], min: number, max: number): number {
  const longest = Math.max(0, ...lines.map((l) => l.length));
  return Math.round(Math.min(max, Math.max(min, longest * CHAR + 24)));
}

/** The header height of a group box (title and detail lines). */
export function groupHeader(node: MachineNode): number {
  return HEADER + boxLines(node).length * LINE;
}

function elkNode(node: MachineNode, kids: ElkNode[]): ElkNode {
  const lines = [node.label + (node.replicas ? ` ×${node.replicas}` : ''), ...boxLines(node)];
  if (node.group) {
    return {
      id: node.id,
      layoutOptions: {
        'elk.padding': `[top=${groupHeader(node) + 8},left=12,bottom=12,right=12]`,
        // Wide enough for its own header even when its children are narrow.
        // (Honoured the right way round only with direction RIGHT: with DOWN, ELK 0.12 swaps
        // a compound node's minimum width and height.)
        'elk.nodeSize.constraints': '[MINIMUM_SIZE]',
        'elk.nodeSize.minimum': `(${textWidth(lines, 120, 420)}.0, ${groupHeader(node) + 20}.0)`,
      },
      children: kids,
    };
  }
  // A task shows its run state on a second line ("2 of 3 running"); a state on its name line,
  // so it keeps room for the badge.
  if (node.kind === 'task') {
    return {
      id: node.id,
      width: Math.max(textWidth(lines, 90, 220), 130),
      height: 46 + boxLines(node).length * LINE,
    };
  }
  return {
    id: node.id,
    width: Math.min(400, textWidth(lines, 110, 340) + 56),
    height: 40 + boxLines(node).length * LINE,
  };
}

function elkEdge(edge: MachineEdge): ElkExtendedEdge {
  return {
    id: edge.id,
    sources: [edge.source],
    targets: [edge.target],
    ...(edge.label
      ? {
          labels: [{ text: edge.label, width: Math.ceil(edge.label.length * 6 + 8), height: 14 }],
        }
      : {}),
  };
}

let elk: Promise<ELK> | undefined;

/** ELK is loaded on first use, in its own chunk (the editor's auto-layout shares it). */
function loadElk(): Promise<ELK> {
  elk ??= import('elkjs/lib/elk.bundled.js').then(({ default: Elk }) => new Elk());
  return elk;
}

/** Inside one machine: states flow left to right. */
const MACHINE_OPTIONS = {
  'elk.algorithm': 'layered',
  // See the note on minimum sizes in elkNode: RIGHT is also what keeps those right.
  'elk.direction': 'RIGHT',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  'elk.spacing.nodeNode': '22',
  'elk.spacing.edgeLabel': '4',
  'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
};

/** Between machines: each below the one that starts it. */
const SET_OPTIONS = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.layered.spacing.nodeNodeBetweenLayers': '64',
  'elk.spacing.nodeNode': '28',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.padding': '[top=12,left=12,bottom=12,right=12]',
};

/** A box's own position in absolute terms, and its size. */
interface Placed extends Box {
  ax: number;
  ay: number;
}

/** Positions every box and routes every arrow. */
export async function layoutMachineGraph(graph: MachineGraph): Promise<MachineLayout> {
  const engine = await loadElk();
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const kids = new Map<string | undefined, MachineNode[]>();
  for (const n of graph.nodes) kids.set(n.parent, [...(kids.get(n.parent) ?? []), n]);
  const build = (parent: string | undefined): ElkNode[] =>
    (kids.get(parent) ?? []).map((n) => elkNode(n, build(n.id)));

  const machineOf = (id: string) => byId.get(id)?.machine;
  /** An arrow from one machine to another (to a machine it invokes or spawns). */
  const crossing = (e: MachineEdge) => machineOf(e.source) !== machineOf(e.target);
  const boxes: Record<string, Box> = {};
  const routes: Record<string, Route> = {};

  // 1. Each machine by itself, coordinates relative to the machine's box.
  const inner = new Map<string, { out: ElkNode; at: Map<string, Point> }>();
  for (const key of graph.machines) {
    const id = machineNodeId(key);
    const machine = byId.get(id);
    if (!machine) continue;
    const input: ElkNode = {
      id,
      layoutOptions: {
        ...MACHINE_OPTIONS,
        'elk.padding': `[top=${groupHeader(machine) + 8},left=12,bottom=12,right=12]`,
      },
      children: build(id),
      edges: graph.edges.filter((e) => !crossing(e) && machineOf(e.source) === key).map(elkEdge),
    };
    const out = await engine.layout(input);
    const at = new Map<string, Point>([[id, { x: 0, y: 0 }]]);
    const walk = (node: ElkNode, origin: Point) => {
      for (const child of node.children ?? []) {
        boxes[child.id] = {
          x: child.x ?? 0,
          y: child.y ?? 0,
          width: child.width ?? 0,
          height: child.height ?? 0,
        };
        const p = { x: origin.x + (child.x ?? 0), y: origin.y + (child.y ?? 0) };
        at.set(child.id, p);
        walk(child, p);
      }
    };
    walk(out, { x: 0, y: 0 });
    const width = Math.max(out.width ?? 0, textWidth([machine.label, 'machine'], 160, 600));
    boxes[id] = { x: 0, y: 0, width, height: out.height ?? 0 };
    inner.set(key, { out, at });
  }

  // 2. The machines, each below the one that starts it.
  const pairs = new Map<string, ElkExtendedEdge>();
  for (const e of graph.edges.filter(crossing)) {
    const from = machineOf(e.source);
    const to = machineOf(e.target);
    if (!from || !to || from === to) continue;
    pairs.set(`${from}->${to}`, { id: `${from}->${to}`, sources: [from], targets: [to] });
  }
  const set = await engine.layout({
    id: '__set__',
    layoutOptions: SET_OPTIONS,
    children: graph.machines.flatMap((key) => {
      const box = boxes[machineNodeId(key)];
      return box ? [{ id: machineNodeId(key), width: box.width, height: box.height }] : [];
    }),
    edges: [...pairs.values()],
  });
  const placed = new Map<string, Placed>();
  for (const child of set.children ?? []) {
    const box = boxes[child.id]!;
    box.x = child.x ?? 0;
    box.y = child.y ?? 0;
    const key = byId.get(child.id)?.machine ?? child.id;
    for (const [id, p] of inner.get(key)?.at ?? []) {
      const b = boxes[id]!;
      placed.set(id, { ...b, ax: box.x + p.x, ay: box.y + p.y });
    }
  }

  // Arrows inside a machine: ELK's routes, moved to where the machine landed.
  for (const key of graph.machines) {
    const entry = inner.get(key);
    const origin = placed.get(machineNodeId(key));
    if (!entry || !origin) continue;
    const collect = (node: ElkNode) => {
      for (const edge of (node.edges ?? []) as ElkExtendedEdge[]) {
        // Edge coordinates are relative to the edge's container (where ELK put it).
        const c = entry.at.get(edge.container ?? node.id) ?? { x: 0, y: 0 };
        const shift = (p: Point) => ({ x: p.x + c.x + origin.ax, y: p.y + c.y + origin.ay });
        const points: Point[] = [];
        for (const section of edge.sections ?? []) {
          points.push(shift(section.startPoint), ...(section.bendPoints ?? []).map(shift));
          points.push(shift(section.endPoint));
        }
        const label = edge.labels?.[0];
        routes[edge.id] = {
          points,
          ...(label
            ? {
                label: {
                  ...shift({ x: label.x ?? 0, y: label.y ?? 0 }),
                  width: label.width ?? 0,
                  height: label.height ?? 0,
                },
              }
            : {}),
        };
      }
      for (const child of node.children ?? []) collect(child);
    };
    collect(entry.out);
  }

  // Arrows to another machine: out of the starting box, through the gap, into the machine.
  // When another box of the machine is in the way, the arrow leaves from the machine's edge
  // below (or above) the starting box instead of crossing it; its label names the start.
  const leaves = [...placed.entries()].filter(([id]) => byId.get(id)?.group !== true);
  graph.edges.filter(crossing).forEach((e, i) => {
    const from = placed.get(e.source);
    const to = placed.get(e.target);
    const key = machineOf(e.source) ?? '';
    const home = placed.get(machineNodeId(key));
    if (!from || !to || !home) return;
    const x1 = from.ax + from.width / 2;
    const x2 = to.ax + to.width / 2;
    const lane = (i % 6) * 5;
    const down = to.ay >= home.ay + home.height;
    const [top, bottom] = down
      ? [from.ay + from.height, home.ay + home.height]
      : [home.ay, from.ay];
    const blocked = leaves.some(
      ([id, b]) =>
        id !== e.source &&
        machineOf(id) === key &&
        b.ax < x1 &&
        x1 < b.ax + b.width &&
        b.ay < bottom &&
        b.ay + b.height > top,
    );
    const start = down
      ? { x: x1, y: blocked ? bottom : top }
      : { x: x1, y: blocked ? top : bottom };
    const channel = down ? bottom + 14 + lane : top - 14 - lane;
    const points: Point[] = [
      start,
      { x: x1, y: channel },
      { x: x2, y: channel },
      { x: x2, y: down ? to.ay : to.ay + to.height },
    ];
    const end = points[points.length - 1]!;
    const below = end.y === to.ay;
    routes[e.id] = {
      points,
      ...(e.label
        ? {
            label: {
              x: end.x + 4,
              y: below ? end.y - 16 : end.y + 2,
              width: e.label.length * 6 + 8,
              height: 14,
            },
          }
        : {}),
    };
  });

  return { boxes, routes };
}
