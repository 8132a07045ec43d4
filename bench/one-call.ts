/** The one-call society the queue and serve benchmarks run: an input, one agent, an output. */
export const doc = {
  version: 1,
  name: 'one call',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 5 } },
  nodes: [
    { id: 'question', type: 'input', position: { x: 0, y: 0 }, data: { name: 'question' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Q {{ question }}' },
    },
    { id: 'answer', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'question', sourceHandle: 'value', target: 'a', targetHandle: 'question' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
  ],
};
