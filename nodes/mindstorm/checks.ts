/** What a mindstorm asks of the graph around it: a round to run, members and a leader inside. */
import type { GraphNodeView, GraphProblem, GraphView } from '../../app/node-sdk/graph-view.ts';
import type { MindstormData } from './rights.ts';
import { memberName, topologyProblem } from './topology.ts';

export function mindstormGraphProblems(
  node: GraphNodeView & { data: MindstormData },
  graph: GraphView,
): GraphProblem[] {
  const problems: GraphProblem[] = [];
  if (node.replicated) {
    problems.push({
      path: ['data', 'replicate'],
      message: 'a mindstorm cannot be replicated itself: put it in a group and replicate the group',
    });
  }
  const inside = graph.children(node.id);
  if (!inside.some((n) => n.stage === 'round')) {
    problems.push({
      path: [],
      message: 'a mindstorm needs at least one node inside it with stage "round"',
    });
  }
  const isInside = (id: string) => graph.node(id)?.parent === node.id;
  node.data.members.forEach((m, i) => {
    if (!isInside(m)) {
      problems.push({
        path: ['data', 'members', i],
        message: `member "${m}" is not a node inside this mindstorm`,
      });
    } else if (graph.node(m)?.type !== 'agent') {
      problems.push({ path: ['data', 'members', i], message: `member "${m}" must be an agent` });
    }
  });
  if (node.data.topology !== 'full') {
    const problem = topologyProblem(node.data, memberNames(node.data.members, graph));
    if (problem) problems.push({ path: ['data', 'topology'], message: `topology: ${problem}` });
  }
  const leader = node.data.leader;
  const chosen = leader ? graph.node(leader) : undefined;
  if (leader && (!isInside(leader) || chosen?.type !== 'agent' || chosen.stage !== 'decide')) {
    problems.push({
      path: ['data', 'leader'],
      message: `leader "${leader}" must be an agent inside this mindstorm with stage "decide"`,
    });
  }
  return problems;
}

/** The members one per copy, as the topology names them (`member#0`…, or a single agent's id). */
export function memberNames(members: string[], graph: GraphView): string[] {
  return members.flatMap((m) => {
    const view = graph.node(m);
    if (!view?.replicated) return [m];
    const items = (view.data.replicate as { items?: unknown[] } | undefined)?.items;
    const count = Array.isArray(items) ? items.length : 1;
    return Array.from({ length: count }, (_, i) => memberName(m, i));
  });
}
