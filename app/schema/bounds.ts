/**
 * The structural bounds of a document (DOCUMENT_BOUNDS), checked on the raw value right after
 * JSON.parse, before anything recursive or costly reads it. JSON.parse is iterative and takes
 * any depth, but the schema, the compiler and JSON.stringify recurse: a value nested 20,000 deep
 * would overflow their stacks. And a replicate list of a million items is refused here, in one
 * line, before the schema walks it item by item.
 */
import { DOCUMENT_BOUNDS } from './limits.ts';
import { prototypeNameMessage } from './names.ts';
import { formatPath, type Problem } from './problems.ts';

/**
 * What keeps a raw document (already a JSON object) out of bounds, as problems with paths;
 * none when it is within them. Deeper checks need the document's structure; these need none.
 */
export function boundsProblems(raw: Record<string, unknown>): Problem[] {
  const deep = tooDeepAt(raw, DOCUMENT_BOUNDS.maxDepth);
  if (deep) {
    return [
      {
        path: formatPath(deep),
        ...nodeAt(raw, deep),
        message: `nested too deep: a document nests at most ${DOCUMENT_BOUNDS.maxDepth} levels`,
      },
    ];
  }
  const proto = protoKeyAt(raw);
  if (proto) {
    return [
      {
        path: formatPath(proto),
        ...nodeAt(raw, proto),
        message: prototypeNameMessage('__proto__', 'a key in a document'),
      },
    ];
  }
  const problems: Problem[] = [];
  const nodes = Array.isArray(raw.nodes) ? raw.nodes : [];
  nodes.forEach((node: unknown, index) => {
    const items = (node as { data?: { replicate?: { items?: unknown } } } | null)?.data?.replicate
      ?.items;
    if (Array.isArray(items) && items.length > DOCUMENT_BOUNDS.maxReplicas) {
      problems.push({
        path: formatPath(['nodes', index, 'data', 'replicate', 'items']),
        ...nodeAt(raw, ['nodes', index]),
        message: tooManyReplicas(items.length),
      });
    }
  });
  return problems;
}

/** The message for a replicate list longer than a node or group may be copied. */
export function tooManyReplicas(count?: number): string {
  const most = DOCUMENT_BOUNDS.maxReplicas.toLocaleString('en-US');
  const has = count === undefined ? 'too many items' : `${count.toLocaleString('en-US')} items`;
  return `${has}: a node or group makes at most ${most} copies`;
}

/** `{ node: id }` when the path goes through a node that has a string id. */
function nodeAt(raw: Record<string, unknown>, path: PropertyKey[]): { node?: string } {
  if (path[0] !== 'nodes' || typeof path[1] !== 'number' || !Array.isArray(raw.nodes)) return {};
  const id = (raw.nodes[path[1]] as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' ? { node: id } : {};
}

/** One value on the walk, with the way back to the root for the path. */
interface Frame {
  value: unknown;
  /** Containers from the root to this value, the root itself counting 1. */
  depth: number;
  parent: Frame | undefined;
  key: PropertyKey;
}

/**
 * The JSON path (as keys and indices) to the first container nested deeper than `maxDepth`,
 * in document order, or undefined when the value nests no deeper. A value shared or cyclic in
 * memory (only a JavaScript caller can hand one over) is walked again only when met deeper
 * than before, so the walk stays linear in the value's size.
 */
export function tooDeepAt(value: unknown, maxDepth: number): PropertyKey[] | undefined {
  const seenAt = new WeakMap<object, number>();
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const current = frame.value;
    if (typeof current !== 'object' || current === null) continue;
    if (frame.depth > maxDepth) return pathOf(frame);
    const before = seenAt.get(current);
    if (before !== undefined && before >= frame.depth) continue;
    seenAt.set(current, frame.depth);
    // Pushed last-first, so the first child is walked first: the first deep point found is
    // the first in the document. Only containers are pushed: a list of a million strings
    // costs one pass and no frames.
    const parent = frame;
    const keys: PropertyKey[] = Array.isArray(current) ? [] : Object.keys(current);
    const size = Array.isArray(current) ? current.length : keys.length;
    for (let i = size - 1; i >= 0; i--) {
      const key = Array.isArray(current) ? i : (keys[i] as string);
      const child = (current as Record<PropertyKey, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        stack.push({ value: child, depth: parent.depth + 1, parent, key });
      }
    }
  }
  return undefined;
}

/**
 * The path to the first `__proto__` key in `value`, or undefined. JSON.parse keeps it as an
 * ordinary key, but the first copy made with an assignment (as a schema's output is) turns it
 * into the copy's prototype: the key would vanish and its value leak into every lookup.
 */
export function protoKeyAt(value: unknown): PropertyKey[] | undefined {
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }];
  const seen = new WeakSet<object>();
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const current = frame.value;
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (!Array.isArray(current) && Object.hasOwn(current, '__proto__')) {
      return [...pathOf(frame), '__proto__'];
    }
    const entries = Array.isArray(current) ? current.entries() : Object.entries(current);
    for (const [key, child] of entries) {
      if (typeof child === 'object' && child !== null) {
        stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
      }
    }
  }
  return undefined;
}

function pathOf(frame: Frame): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}
