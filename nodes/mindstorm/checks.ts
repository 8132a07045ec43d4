/** What a mindstorm asks of the graph around it: a round to run, members and a leader inside. */
import type { GraphNodeView, GraphProblem, GraphView } from '../../app/node-sdk/graph-view.ts';
import type { MindstormData } from './rights.ts';

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
