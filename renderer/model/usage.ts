/**
 * Calls, tokens and cost of a run broken down by node and by round, from the answers folded so
 * far (the same grouping `society show` prints): live while the run goes on.
 */
import type { InstanceRun } from './run.ts';

export interface UsageRow {
  key: string;
  calls: number;
  tokens: number;
  costUsd: number;
  /** Node instances that made the calls. */
  instances: number;
}

function group(instances: readonly InstanceRun[], keyOf: (i: InstanceRun) => string): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const i of instances) {
    if (i.calls === 0) continue;
    const key = keyOf(i);
    const row = rows.get(key) ?? { key, calls: 0, tokens: 0, costUsd: 0, instances: 0 };
    row.calls += i.calls;
    row.tokens += i.tokens;
    row.costUsd += i.costUsd;
    row.instances++;
    rows.set(key, row);
  }
  return [...rows.values()];
}

/** By node id, in the order the nodes first ran. */
export function usageByNode(instances: Record<string, InstanceRun>): UsageRow[] {
  return group(Object.values(instances), (i) => i.node);
}

/**
 * By round of a loop (`round 2`), by stage of one (`init`, `gather`, `decide`), or outside
 * any loop: read from the instance id like the CLI does (`member#1@r2`, `summary@gather`).
 */
export function usageByRound(instances: Record<string, InstanceRun>): UsageRow[] {
  return group(Object.values(instances), (i) => roundOf(i.instance));
}

export function roundOf(instance: string): string {
  const at = /@(?:r(\d+)|(\w+))(?::|$)/.exec(instance);
  return at ? (at[1] ? `round ${at[1]}` : at[2]!) : 'outside loops';
}
