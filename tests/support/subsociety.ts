/**
 * A document with a sub-society replicated ×3 that holds another one level down: graph `panel`
 * (two agents and a `check`, itself graph `checker`), used by node `judge` once per style.
 * Model calls: 3 per copy of `judge` (agent1, agent2, check/agent1), 9 in all, and `summary`.
 */
import type { GraphDocument } from '../../app/schema/document.ts';
import { agent, edge, input, node, output } from './graphs.ts';

/** The calls one copy of the `panel` graph makes. */
export const PANEL_CALLS = 3;
export const STYLES = ['terse', 'warm', 'formal'];

export function subsocietyDocument(): GraphDocument {
  return {
    version: 1,
    name: 'panel of judges',
    models: { m: { provider: 'openai', model: 'test-model' } },
    nodes: [
      input('question', { example: 'Is the bridge safe?' }),
      node('judge', 'society', {
        graph: 'panel',
        replicate: { items: STYLES, as: 'style' },
      }),
      agent('summary', 'Verdicts:\n{% for v in verdicts %}- {{ v }}\n{% endfor %}One line.', {
        slots: { verdicts: 'list<text>' },
      }),
      output('answer'),
    ],
    edges: [
      edge('question.value', 'judge.question'),
      edge('judge.verdict', 'summary.verdicts'),
      edge('summary.text', 'answer.value'),
    ],
    graphs: {
      panel: {
        description: 'Two agents answer in a style; a checker checks the second.',
        nodes: [
          input('question'),
          agent('agent1', 'In a {{ style }} voice: {{ question }}'),
          agent('agent2', 'Improve, {{ style }}: {{ draft }}'),
          node('check', 'society', { graph: 'checker' }),
          output('verdict'),
        ],
        edges: [
          edge('question.value', 'agent1.question'),
          edge('agent1.text', 'agent2.draft'),
          edge('agent2.text', 'check.claim'),
          edge('check.verdict', 'verdict.value'),
        ],
      },
      checker: {
        nodes: [
          input('claim'),
          agent('agent1', 'Check this claim: {{ claim }}'),
          output('verdict'),
        ],
        edges: [edge('claim.value', 'agent1.claim'), edge('agent1.text', 'verdict.value')],
      },
    },
  };
}
