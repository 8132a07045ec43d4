/**
 * Mutations of society documents for the document fuzzer: what a careless editor, a broken
 * tool or an attacker could hand to `compileGraph`. Each case starts from a shipped template,
 * applies a few mutations to its value, then hands over the result as JSON text (sometimes cut
 * short or edited as text) or as a value in memory (where NaN, -0 and cycles can exist).
 */
import type { Random } from './random.ts';

type Json = unknown;
type Path = Array<string | number>;

/** One fuzz case: what compileGraph is given, and the mutations that made it. */
export interface FuzzCase {
  input: string | Json;
  steps: string[];
}

const NODE_TYPES = [
  'agent',
  'environment',
  'expert',
  'group',
  'human',
  'input',
  'metric',
  'mindstorm',
  'output',
  'planner',
  'dispatcher',
  'summarize',
  'transform',
  'vote',
  'oracle',
  '',
  '__proto__',
];

const ODD_STRINGS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '$root',
  'a'.repeat(10_000),
  '\u0000',
  '\ud800',
  '🦜🦜',
  '{{',
  '}}',
  '{{ }}',
  '{{ q }}',
  '{{ a.b.c.d }}',
  '{{ __proto__ }}',
  '{{ constructor.constructor }}',
  '{{ replica.index }}',
  '{% for x in y %}{{ x }}{% endfor %}',
  '{{#each x}}{{/each}}',
  'node.port',
  '.',
  'a.',
  '.b',
  '1',
  'null',
  'NaN',
  'text',
  'list<text>',
  'image',
  'list<list<image>>',
  'round',
  'init',
  'decide',
  'openai',
  'simulated',
];

const ODD_NUMBERS = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  -1,
  0,
  1,
  1.5,
  2 ** 31,
  2 ** 53 + 1,
  1e308,
  Number.MIN_VALUE,
  -1e9,
];

const ODD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  '',
  'nodes',
  'replicate',
  'parentId',
  'id',
];

/** Every path in the value, the root's `[]` first. Iterative: values may be deep. */
function pathsOf(value: Json, limit = 5_000): Path[] {
  const out: Path[] = [];
  const stack: Array<[Json, Path]> = [[value, []]];
  while (stack.length > 0 && out.length < limit) {
    const [v, path] = stack.pop() as [Json, Path];
    out.push(path);
    if (Array.isArray(v)) {
      // Long lists (replicate items) are sampled, not walked whole.
      for (let i = 0; i < Math.min(v.length, 50); i++) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        stack.push([(v as Record<string, Json>)[key], [...path, key]]);
      }
    }
  }
  return out;
}

/**
 * A random path, inside some node's `data` more often than not: that is where node types read
 * their own fields, and damage there gets past the document schema to the compiler.
 */
function somePath(doc: Json, r: Random): Path {
  const all = pathsOf(doc);
  if (r.chance(0.6)) {
    const inData = all.filter((p) => p[0] === 'nodes' && p[2] === 'data' && p.length > 3);
    if (inData.length > 0) return r.pick(inData);
  }
  return r.pick(all);
}

function getAt(root: Json, path: Path): Json {
  let v = root;
  for (const key of path) v = (v as Record<string | number, Json>)?.[key];
  return v;
}

/** Sets an own property, even one called `__proto__` (as JSON.parse makes it). */
function setOwn(target: object, key: string | number, value: Json): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function setAt(root: { doc: Json }, path: Path, value: Json): void {
  if (path.length === 0) {
    root.doc = value;
    return;
  }
  const parent = getAt(root.doc, path.slice(0, -1));
  if (parent !== null && typeof parent === 'object') setOwn(parent, path.at(-1) as string, value);
}

function deleteAt(root: { doc: Json }, path: Path): void {
  if (path.length === 0) return;
  const parent = getAt(root.doc, path.slice(0, -1));
  const key = path.at(-1) as string | number;
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
  else if (parent !== null && typeof parent === 'object')
    delete (parent as Record<string, Json>)[key];
}

function nested(levels: number, leaf: Json, r: Random): Json {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = r.chance(0.5) ? [v] : { k: v };
  return v;
}

function scalar(r: Random): Json {
  switch (r.int(5)) {
    case 0:
      return r.pick(ODD_STRINGS);
    case 1:
      return r.pick(ODD_NUMBERS);
    case 2:
      return r.chance(0.5);
    case 3:
      return null;
    default:
      return r.int(100);
  }
}

function randomValue(r: Random): Json {
  switch (r.int(4)) {
    case 0:
      return [];
    case 1:
      return {};
    case 2:
      return Array.from({ length: r.int(4) }, () => scalar(r));
    default:
      return scalar(r);
  }
}

function listOf(r: Random): Json[] {
  const size = r.pick([0, 1, 2, 999, 1000, 1001, 5_000]);
  const item = scalar(r);
  return Array.from({ length: size }, (_, i) => (r.chance(0.5) ? i : item));
}

function nodesOf(doc: Json): Array<Record<string, Json>> {
  const nodes = (doc as { nodes?: Json })?.nodes;
  return Array.isArray(nodes) ? nodes.filter((n) => n !== null && typeof n === 'object') : [];
}

function edgesOf(doc: Json): Array<Record<string, Json>> {
  const edges = (doc as { edges?: Json })?.edges;
  return Array.isArray(edges) ? edges.filter((e) => e !== null && typeof e === 'object') : [];
}

function idsOf(doc: Json): Json[] {
  return [...nodesOf(doc).map((n) => n.id), 'ghost', '', '$root'];
}

/** A mutation of the document value; returns what it did, for the failure report. */
type Mutation = (root: { doc: Json }, r: Random) => string;

/** Name, how often it is picked relative to the others, and the mutation. */
const MUTATIONS: Array<[string, number, Mutation]> = [
  [
    'delete',
    3,
    (root, r) => {
      const path = somePath(root.doc, r);
      deleteAt(root, path);
      return `delete ${path.join('.')}`;
    },
  ],
  [
    'duplicate',
    2,
    (root, r) => {
      const path = somePath(root.doc, r);
      const parent = getAt(root.doc, path.slice(0, -1));
      const value = structuredClone(getAt(root.doc, path));
      if (Array.isArray(parent)) parent.push(value);
      else setAt(root, [...path.slice(0, -1), `${String(path.at(-1))}2`], value);
      return `duplicate ${path.join('.')}`;
    },
  ],
  [
    'retype',
    3,
    (root, r) => {
      const path = somePath(root.doc, r);
      setAt(root, path, randomValue(r));
      return `retype ${path.join('.')}`;
    },
  ],
  [
    'swap',
    2,
    (root, r) => {
      const paths = pathsOf(root.doc).filter((p) => p.length > 0);
      if (paths.length < 2) return 'swap (nothing)';
      const a = r.pick(paths);
      const b = r.pick(paths);
      // Swapping a value into its own subtree would make a cycle; the value form has its own.
      if (a.join('.').startsWith(b.join('.')) || b.join('.').startsWith(a.join('.'))) {
        return 'swap (nested)';
      }
      const va = getAt(root.doc, a);
      setAt(root, a, getAt(root.doc, b));
      setAt(root, b, va);
      return `swap ${a.join('.')} ${b.join('.')}`;
    },
  ],
  [
    'deepen',
    1,
    (root, r) => {
      const path = somePath(root.doc, r);
      const levels = r.pick([3, 10, 30, 56, 57, 58, 59, 60, 61, 62, 200, 1_000]);
      setAt(root, path, nested(levels, scalar(r), r));
      return `deepen ${path.join('.')} by ${levels}`;
    },
  ],
  [
    'huge list',
    1,
    (root, r) => {
      const path = somePath(root.doc, r);
      const list = listOf(r);
      setAt(root, path, list);
      return `list of ${list.length} at ${path.join('.')}`;
    },
  ],
  [
    'odd string',
    4,
    (root, r) => {
      const path = somePath(root.doc, r);
      setAt(root, path, r.pick(ODD_STRINGS));
      return `odd string at ${path.join('.')}`;
    },
  ],
  [
    'odd number',
    3,
    (root, r) => {
      const path = somePath(root.doc, r);
      setAt(root, path, r.pick(ODD_NUMBERS));
      return `odd number at ${path.join('.')}`;
    },
  ],
  [
    'odd key',
    2,
    (root, r) => {
      const objects = pathsOf(root.doc).filter((p) => {
        const v = getAt(root.doc, p);
        return v !== null && typeof v === 'object' && !Array.isArray(v);
      });
      if (objects.length === 0) return 'odd key (nothing)';
      const path = r.pick(objects);
      const key = r.pick(ODD_KEYS);
      setOwn(getAt(root.doc, path) as object, key, randomValue(r));
      return `key ${JSON.stringify(key)} at ${path.join('.')}`;
    },
  ],
  [
    'version',
    1,
    (root, r) => {
      const version = r.pick([0, 2, '1', null, 1.5, -1, 999, Number.NaN, undefined]);
      if (root.doc !== null && typeof root.doc === 'object') setOwn(root.doc, 'version', version);
      return `version ${String(version)}`;
    },
  ],
  [
    'rewire',
    4,
    (root, r) => {
      const edges = edgesOf(root.doc);
      if (edges.length === 0) return 'rewire (no edges)';
      const edge = r.pick(edges);
      const field = r.pick(['source', 'target', 'sourceHandle', 'targetHandle']);
      edge[field] = field.endsWith('Handle')
        ? r.pick(['value', 'text', 'q', 'ballots', 'x', '', 'members'])
        : r.pick(idsOf(root.doc));
      if (r.chance(0.3)) edge.data = r.pick([{ previousRound: true }, { collect: 'all' }, 7]);
      return `rewire edge ${String(edge.id)} ${field}`;
    },
  ],
  [
    'reparent',
    3,
    (root, r) => {
      const nodes = nodesOf(root.doc);
      if (nodes.length === 0) return 'reparent (no nodes)';
      const child = r.pick(nodes);
      child.parentId = r.pick(idsOf(root.doc));
      return `reparent ${String(child.id)} under ${String(child.parentId)}`;
    },
  ],
  [
    'retype node',
    2,
    (root, r) => {
      const nodes = nodesOf(root.doc);
      if (nodes.length === 0) return 'retype node (no nodes)';
      const node = r.pick(nodes);
      node.type = r.pick(NODE_TYPES);
      return `node ${String(node.id)} becomes ${String(node.type)}`;
    },
  ],
  [
    'replicate',
    4,
    (root, r) => {
      const nodes = nodesOf(root.doc);
      if (nodes.length === 0) return 'replicate (no nodes)';
      const node = r.pick(nodes);
      const data = (node.data !== null && typeof node.data === 'object' ? node.data : {}) as Record<
        string,
        Json
      >;
      const size = r.pick([1, 2, 10, 100, 999, 1_000, 1_001]);
      data.replicate = {
        items: Array.from({ length: size }, (_, i) => i),
        ...(r.chance(0.5) ? { as: r.pick(['item', 'x', '__proto__', 'replica', '1bad']) } : {}),
      };
      node.data = data;
      return `replicate ${String(node.id)} ${size} times`;
    },
  ],
];

/** Text-level damage: what a truncated download or a bad merge does to a file. */
function damageText(text: string, r: Random): [string, string] {
  switch (r.chance(0.1) ? 3 : r.int(3)) {
    case 0: {
      const at = r.int(text.length);
      return [text.slice(0, at), `cut at ${at}`];
    }
    case 1: {
      const keys = [...text.matchAll(/"([A-Za-z_]+)":/g)];
      if (keys.length === 0) return [text, 'no key to rename'];
      const match = r.pick(keys);
      const key = r.pick(ODD_KEYS);
      const at = match.index ?? 0;
      return [
        `${text.slice(0, at)}"${key}":${text.slice(at + match[0].length)}`,
        `rename "${match[1]}" to "${key}"`,
      ];
    }
    case 2: {
      const at = r.int(text.length);
      const junk = r.pick(['{', '}', '[', ']', ',', '"', '\\', ':', 'null', '\u0000', '1e999']);
      return [`${text.slice(0, at)}${junk}${text.slice(at)}`, `insert ${JSON.stringify(junk)}`];
    }
    default: {
      // Far deeper than any recursion survives: only the text form can carry it.
      const levels = 20_000;
      const at = text.indexOf('"data":');
      if (at < 0) return [text, 'nothing to deepen'];
      const deep = `"deep":${'['.repeat(levels)}1${']'.repeat(levels)},`;
      const insertAt = at + '"data":{'.length;
      return [`${text.slice(0, insertAt)}${deep}${text.slice(insertAt)}`, `deepen text ${levels}`];
    }
  }
}

const TOTAL_WEIGHT = MUTATIONS.reduce((sum, [, weight]) => sum + weight, 0);

function someMutation(r: Random): [string, number, Mutation] {
  let left = r.int(TOTAL_WEIGHT);
  for (const entry of MUTATIONS) {
    left -= entry[1];
    if (left < 0) return entry;
  }
  return MUTATIONS[0] as [string, number, Mutation];
}

/** One case: a template, one to three mutations, then text, damaged text or a value. */
export function fuzzCase(templates: readonly Json[], r: Random): FuzzCase {
  const root = { doc: structuredClone(r.pick(templates)) };
  const steps: string[] = [];
  // Half the cases get a single mutation, so that many get past the schema to the compiler.
  const count = r.chance(0.5) ? 1 : 2 + r.int(2);
  for (let i = 0; i < count; i++) {
    const [name, , mutate] = someMutation(r);
    steps.push(`${name}: ${mutate(root, r)}`);
  }
  const form = r.next();
  if (form < 0.2) {
    if (r.chance(0.1) && root.doc !== null && typeof root.doc === 'object') {
      setOwn(root.doc, 'cycle', root.doc);
      steps.push('value with a cycle');
    } else steps.push('as a value');
    return { input: root.doc, steps };
  }
  const text = JSON.stringify(root.doc) ?? 'undefined';
  if (form < 0.35) {
    const [damaged, what] = damageText(text, r);
    steps.push(what);
    return { input: damaged, steps };
  }
  steps.push('as text');
  return { input: text, steps };
}
