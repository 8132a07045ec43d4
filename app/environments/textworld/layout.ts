/**
 * What a world's spec says about where things are, indexed for the rules: areas by id, the
 * area each piece of furniture stands in, doors both ways, and every name an action may use
 * (ids, and agents' longer names) without regard to case. Built once per loaded world; the
 * spec never changes during a run, only the dynamic state does.
 */
import type { AgentSpec, AreaSpec, FurnitureSpec, ItemSpec, WorldSpec } from './format.ts';

/** What a name in an action stands for. */
export type NameKind = 'area' | 'furniture' | 'item' | 'agent';

export interface Named {
  kind: NameKind;
  id: string;
}

export interface Layout {
  spec: WorldSpec;
  areas: Map<string, AreaSpec>;
  furniture: Map<string, FurnitureSpec & { area: string }>;
  items: Map<string, ItemSpec>;
  agents: Map<string, AgentSpec>;
  /** Areas one door away, in world order (the order of `areas`). */
  neighbours: Map<string, string[]>;
  /** Lower-cased id or agent name → what it names. */
  names: Map<string, Named>;
}

/** The layout of a spec whose references have been checked (load.ts); first id wins on clashes. */
export function buildLayout(spec: WorldSpec): Layout {
  const areas = new Map(spec.areas.map((a) => [a.id, a]));
  const furniture = new Map<string, FurnitureSpec & { area: string }>();
  for (const area of spec.areas) {
    for (const f of area.furniture)
      if (!furniture.has(f.id)) furniture.set(f.id, { ...f, area: area.id });
  }
  const links = new Map<string, Set<string>>(spec.areas.map((a) => [a.id, new Set<string>()]));
  for (const area of spec.areas) {
    for (const door of area.doors) {
      if (door === area.id || !areas.has(door)) continue;
      links.get(area.id)!.add(door);
      links.get(door)!.add(area.id);
    }
  }
  const order = spec.areas.map((a) => a.id);
  const neighbours = new Map(
    order.map((id) => [id, order.filter((other) => links.get(id)!.has(other))]),
  );
  const names = new Map<string, Named>();
  const name = (key: string, named: Named) => {
    const lower = key.toLowerCase();
    if (!names.has(lower)) names.set(lower, named);
  };
  for (const a of spec.areas) name(a.id, { kind: 'area', id: a.id });
  for (const f of furniture.values()) name(f.id, { kind: 'furniture', id: f.id });
  for (const i of spec.items) name(i.id, { kind: 'item', id: i.id });
  for (const a of spec.agents) name(a.id, { kind: 'agent', id: a.id });
  for (const a of spec.agents) if (a.name) name(a.name, { kind: 'agent', id: a.id });
  return {
    spec,
    areas,
    furniture,
    items: new Map(spec.items.map((i) => [i.id, i])),
    agents: new Map(spec.agents.map((a) => [a.id, a])),
    neighbours,
    names,
  };
}

/** An area's name in sentences: its title, else its id. */
export function areaTitle(layout: Layout, area: string): string {
  return layout.areas.get(area)?.title ?? area;
}

/** The first outdoor area one door away from `area`, if any (where `leave` leads). */
export function outdoorNextTo(layout: Layout, area: string): string | undefined {
  return layout.neighbours.get(area)?.find((n) => layout.areas.get(n)?.kind === 'outdoor');
}

/** Up to `max` names for a message, with an ellipsis when there are more. */
export function listNames(names: readonly string[], max = 12): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown}, …` : shown;
}
