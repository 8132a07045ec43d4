/**
 * Who sees whom in a mindstorm: the communication topology of its members (Li et al., "Improving
 * Multi-Agent Debate with Sparse Communication Topology", arXiv 2406.11776). Under the right to
 * know, a member is shown the previous-round answers of the members it is connected to, its own
 * among them; the topology says which. `full` is every member (the NLSOM protocol as written).
 *
 * Members are named one per copy: `member#0`, `member#1`… for a replicated agent, its id for a
 * single one, in the order of the mindstorm's `members` (the order their answers are shown in).
 */
import { z } from 'zod';
import { seededRandom } from '../../app/node-sdk/random.ts';

export const TOPOLOGIES = ['full', 'star', 'ring', 'k-regular', 'adjacency'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

const kRegular = { showWhen: { field: 'topology', is: 'k-regular' } } as const;

/** The topology's fields of a mindstorm's data (spread into its schema). */
export const topologyFields = {
  /**
   * Who sees whom under the right to know: `full` (every member), `star` (the first member is
   * the hub: it sees everyone, the others see the hub), `ring` (each member sees the one before
   * and the one after it), `k-regular` (a random graph where every member sees `k` others, drawn
   * from `seed`), `adjacency` (the lists in `adjacency`).
   */
  topology: z.enum(TOPOLOGIES).default('full'),
  /** For `k-regular`: how many other members each member sees. */
  k: z.number().int().min(1).default(2).meta(kRegular),
  /** For `k-regular`: the seed the graph is drawn from (the same seed, the same graph). */
  seed: z.number().int().default(1).meta(kRegular),
  /**
   * For `adjacency`: the members each member sees, by name (`"member#0": ["member#1"]`); a
   * member not listed sees only its own answer.
   */
  adjacency: z
    .record(z.string().min(1), z.array(z.string().min(1)))
    .default({})
    .meta({ showWhen: { field: 'topology', is: 'adjacency' } }),
};

/** The topology part of a mindstorm's data. */
export interface TopologyData {
  topology: Topology;
  k: number;
  seed: number;
  adjacency: Record<string, string[]>;
}

/** A member's name for a topology: `node#i` for a copy of a replicated agent, else its id. */
export function memberName(node: string, replica: number | undefined): string {
  return replica === undefined ? node : `${node}#${replica}`;
}

/**
 * Why a topology cannot be laid over these members, one line, or undefined when it can. An
 * adjacency naming someone who is not a member names them.
 */
export function topologyProblem(data: TopologyData, members: string[]): string | undefined {
  const n = members.length;
  if (data.topology === 'k-regular') {
    if (data.k >= n) {
      return `a ${data.k}-regular topology needs more than ${data.k} members (there are ${n})`;
    }
    if ((n * data.k) % 2 !== 0) {
      return `no ${data.k}-regular graph has ${n} members: k × members must be even`;
    }
  }
  if (data.topology === 'adjacency') {
    const known = new Set(members);
    const list = members.join(', ');
    for (const [who, sees] of Object.entries(data.adjacency)) {
      for (const name of [who, ...sees]) {
        if (!known.has(name)) {
          return `adjacency names "${name}", not a member of this mindstorm (members: ${list})`;
        }
      }
    }
  }
  return undefined;
}

/**
 * What each member sees, by name: itself and the members the topology connects it to. Only
 * meaningful when `topologyProblem` finds nothing; otherwise every member sees everyone.
 */
export function visibility(data: TopologyData, members: string[]): Map<string, Set<string>> {
  const n = members.length;
  const sees = new Map(members.map((m) => [m, new Set([m])]));
  const link = (a: number, b: number) => {
    sees.get(members[a]!)!.add(members[b]!);
    sees.get(members[b]!)!.add(members[a]!);
  };
  if (data.topology === 'full' || topologyProblem(data, members)) {
    for (const set of sees.values()) for (const m of members) set.add(m);
  } else if (data.topology === 'star') {
    for (let i = 1; i < n; i++) link(0, i);
  } else if (data.topology === 'ring') {
    for (let i = 0; i < n; i++) if (n > 1) link(i, (i + 1) % n);
  } else if (data.topology === 'k-regular') {
    for (const [a, b] of regularEdges(n, data.k, data.seed)) link(a, b);
  } else {
    for (const [who, list] of Object.entries(data.adjacency)) {
      for (const m of list) sees.get(who)?.add(m);
    }
  }
  return sees;
}

/** The topology in a few words, for the card: `ring`, `3-regular (seed 1)`, `star`. */
export function topologyLabel(data: TopologyData): string {
  if (data.topology === 'k-regular') return `${data.k}-regular (seed ${data.seed})`;
  if (data.topology === 'adjacency') {
    const links = Object.values(data.adjacency).reduce((s, l) => s + l.length, 0);
    return `adjacency (${links} link${links === 1 ? '' : 's'})`;
  }
  return data.topology;
}

/**
 * A random k-regular graph on n vertices, drawn from `seed`: the circulant graph (each vertex
 * joined to its k/2 nearest on either side, and the opposite one when k is odd) shuffled by
 * degree-preserving edge swaps, so every draw is k-regular and the same seed draws the same.
 */
export function regularEdges(n: number, k: number, seed: number): Array<[number, number]> {
  const key = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);
  const edges: Array<[number, number]> = [];
  const present = new Set<string>();
  const add = (a: number, b: number) => {
    if (a === b || present.has(key(a, b))) return;
    present.add(key(a, b));
    edges.push([a, b]);
  };
  for (let i = 0; i < n; i++) {
    for (let d = 1; d <= Math.floor(k / 2); d++) add(i, (i + d) % n);
    if (k % 2 === 1) add(i, (i + n / 2) % n);
  }
  const random = seededRandom(`topology:${seed}`);
  const pick = () => Math.floor(random() * edges.length);
  for (let step = 0; step < 10 * edges.length; step++) {
    const i = pick();
    const j = pick();
    const [a, b] = edges[i]!;
    const [c, d] = edges[j]!;
    // a–b, c–d become a–d, c–b when that makes neither a loop nor a double edge.
    if (new Set([a, b, c, d]).size < 4 || present.has(key(a, d)) || present.has(key(c, b))) {
      continue;
    }
    present.delete(key(a, b));
    present.delete(key(c, d));
    present.add(key(a, d));
    present.add(key(c, b));
    edges[i] = [a, d];
    edges[j] = [c, b];
  }
  return edges;
}
