/**
 * Loading a world file: JSON syntax, the shape (format.ts), then everything that refers to
 * something else. Every problem is one line naming a JSON path and, for a bad reference, what
 * the world does have (`agents[2].at: there is no area "libary" (areas: canteen, …)`). Areas
 * no agent can reach are not an error (a world may keep a locked room), but they are reported
 * as warnings.
 */
import { formatPath, type Problem } from '../../schema/problems.ts';
import { readAction } from './actions.ts';
import { type WorldSpec, WorldSpecSchema } from './format.ts';
import { buildLayout, type Layout, listNames } from './layout.ts';

export type LoadResult =
  | { ok: true; spec: WorldSpec; layout: Layout; warnings: Problem[] }
  | { ok: false; problems: Problem[]; warnings: Problem[] };

/** Reads a world from JSON text or a parsed value. Never throws on bad input. */
export function loadWorld(input: string | unknown): LoadResult {
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input);
    } catch (error) {
      const message = `not valid JSON: ${(error as Error).message}`;
      return { ok: false, problems: [{ path: '(world)', message }], warnings: [] };
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const message = 'a world must be a JSON object';
    return { ok: false, problems: [{ path: '(world)', message }], warnings: [] };
  }
  const parsed = WorldSpecSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message,
    }));
    return { ok: false, problems, warnings: [] };
  }
  const spec = parsed.data;
  const problems = referenceProblems(spec);
  const layout = buildLayout(spec);
  if (problems.length === 0) problems.push(...scriptProblems(spec, layout));
  const warnings = problems.length === 0 ? reachWarnings(spec, layout) : [];
  return problems.length > 0
    ? { ok: false, problems, warnings }
    : { ok: true, spec, layout, warnings };
}

/** Every id once (without regard to case), and every reference to something that exists. */
function referenceProblems(spec: WorldSpec): Problem[] {
  const problems: Problem[] = [];
  const add = (path: PropertyKey[], message: string) =>
    problems.push({ path: formatPath(path), message });

  // One namespace for every id: an action like `leave X` must know what X is.
  const seen = new Map<string, { path: string; what: string }>();
  const claim = (id: string, path: PropertyKey[], what: string) => {
    const key = id.toLowerCase();
    const earlier = seen.get(key);
    if (!earlier) {
      seen.set(key, { path: formatPath(path), what });
      return;
    }
    if (what === 'item' && earlier.what === 'item')
      add(path, `item "${id}" is listed in two places (also ${earlier.path})`);
    else add(path, `"${id}" is already the id of ${article(earlier.what)} (${earlier.path})`);
  };
  spec.areas.forEach((a, i) => {
    claim(a.id, ['areas', i, 'id'], 'area');
  });
  spec.areas.forEach((a, i) => {
    a.furniture.forEach((f, j) => {
      claim(f.id, ['areas', i, 'furniture', j, 'id'], 'furniture');
    });
  });
  spec.items.forEach((item, i) => {
    claim(item.id, ['items', i, 'id'], 'item');
  });
  spec.agents.forEach((a, i) => {
    claim(a.id, ['agents', i, 'id'], 'agent');
  });
  spec.agents.forEach((a, i) => {
    if (a.name && a.name.toLowerCase() !== a.id.toLowerCase())
      claim(a.name, ['agents', i, 'name'], 'agent name');
  });

  const areaIds = spec.areas.map((a) => a.id);
  const agentIds = spec.agents.map((a) => a.id);
  const areas = new Set(areaIds);
  const agents = new Set(agentIds);
  const furniture = new Set(spec.areas.flatMap((a) => a.furniture.map((f) => f.id)));
  const noArea = (id: string) =>
    furniture.has(id)
      ? `"${id}" is furniture, not an area`
      : `there is no area "${id}" (areas: ${listNames(areaIds)})`;
  const noAgent = (id: string) => `there is no agent "${id}" (agents: ${listNames(agentIds)})`;

  spec.areas.forEach((area, i) => {
    const listed = new Set<string>();
    area.doors.forEach((door, j) => {
      const path = ['areas', i, 'doors', j];
      if (door === area.id) add(path, `a door from "${area.id}" to itself`);
      else if (!areas.has(door)) add(path, noArea(door));
      else if (listed.has(door)) add(path, `the door to "${door}" is listed twice`);
      listed.add(door);
    });
    if (area.owner !== undefined) {
      if (area.kind !== 'home') add(['areas', i, 'owner'], `only a home has an owner`);
      else if (!agents.has(area.owner)) add(['areas', i, 'owner'], noAgent(area.owner));
    }
  });
  spec.items.forEach((item, i) => {
    if (furniture.has(item.at) || agents.has(item.at)) return;
    add(
      ['items', i, 'at'],
      areas.has(item.at)
        ? `"${item.at}" is an area; an item lies on furniture or is held by an agent`
        : `there is no furniture or agent "${item.at}"`,
    );
  });
  spec.agents.forEach((agent, i) => {
    if (!areas.has(agent.at)) add(['agents', i, 'at'], noArea(agent.at));
  });
  (spec.script ?? []).forEach((entry, i) => {
    if (!agents.has(entry.agent)) add(['script', i, 'agent'], noAgent(entry.agent));
  });
  return problems;
}

/** Each script action must read as an action naming things the world has. */
function scriptProblems(spec: WorldSpec, layout: Layout): Problem[] {
  const problems: Problem[] = [];
  (spec.script ?? []).forEach((entry, i) => {
    const read = readAction(entry.action, layout);
    if (!read.ok)
      problems.push({ path: formatPath(['script', i, 'action']), message: read.message });
  });
  return problems;
}

/** Areas that no agent can walk to from where the agents start. */
function reachWarnings(spec: WorldSpec, layout: Layout): Problem[] {
  const reached = new Set(spec.agents.map((a) => a.at));
  const queue = [...reached];
  while (queue.length > 0) {
    for (const next of layout.neighbours.get(queue.pop()!) ?? []) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  return spec.areas.flatMap((area, i) =>
    reached.has(area.id)
      ? []
      : [{ path: formatPath(['areas', i]), message: `no agent can reach "${area.id}"` }],
  );
}

function article(what: string): string {
  return /^[aeiou]/.test(what) ? `an ${what}` : what === 'furniture' ? what : `a ${what}`;
}
