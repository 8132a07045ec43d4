/**
 * How likely each node is to run, given the branches before it: 1 for a node no branch decides,
 * less behind an output a node may leave untaken (its spec's `branching`: a router's labels).
 * Kept simple on purpose, as an estimate's assumption: a branch is taken with its declared odds
 * (each odd over their sum), else with 1/N for N branches; a node that needs all its inputs
 * runs as often as its least likely input (`inputs: 'all'`), one that takes any of them as
 * often as their sum, at most always (`'any'`: the branches of one router exclude each other).
 * Edges from a previous round are left out: what runs again each round is decided by the round.
 */
import type { GraphPlan } from '../compiler/analyze.ts';

/** The chance, 0 to 1, that each node runs; nodes no branch decides are absent. */
export function branchOdds(plan: GraphPlan): Map<string, number> {
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const oddsOf = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = plan.nodes.get(id);
    if (!node || visiting.has(id)) return 1;
    visiting.add(id);
    const inputs: number[] = [];
    for (const binding of Object.values(node.inputs).flat()) {
      if (binding.previousRound) continue;
      const source = plan.nodes.get(binding.source);
      if (!source) continue;
      inputs.push(oddsOf(source.id) * share(source, binding.sourcePort));
    }
    visiting.delete(id);
    const odds =
      inputs.length === 0
        ? 1
        : (node.spec.inputs ?? 'all') === 'any'
          ? Math.min(
              1,
              inputs.reduce((a, b) => a + b, 0),
            )
          : Math.min(...inputs);
    memo.set(id, odds);
    return odds;
  };
  const result = new Map<string, number>();
  for (const id of plan.nodes.keys()) {
    const odds = oddsOf(id);
    if (odds < 1) result.set(id, odds);
  }
  return result;
}

/** The share of runs in which a node takes one of its outputs: 1 unless it branches there. */
function share(node: NonNullable<ReturnType<GraphPlan['nodes']['get']>>, port: string): number {
  const branching = node.spec.branching?.(node.data);
  if (!branching?.outputs.includes(port)) return 1;
  const odds = branching.odds;
  const total = odds ? branching.outputs.reduce((sum, o) => sum + (odds[o] ?? 0), 0) : 0;
  return total > 0 ? (odds![port] ?? 0) / total : 1 / branching.outputs.length;
}
