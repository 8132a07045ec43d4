/**
 * An eval whose right answers are known, for tests against the local OpenAI stub: ten
 * arithmetic questions, a document that drafts then finishes (two calls an item, so a kill can
 * fall between them), and the server's answers, right for the first seven and wrong for the rest.
 */

/** Ten questions: "What is N times 3?" with the answer 3N. */
export const ARITH_ROWS = Array.from({ length: 10 }, (_, i) => ({
  id: `q${i + 1}`,
  question: `What is ${i + 1} times 3?`,
  answer: String((i + 1) * 3),
}));

/** The server answers questions 1–7 right and 8–10 wrong. */
export const ARITH_RIGHT = 7;

/** A drafter then a finisher. */
export const ARITH_DOCUMENT = {
  version: 1,
  name: 'two-step arithmetic',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 20 } },
  nodes: [
    {
      id: 'question',
      type: 'input',
      position: { x: 0, y: 0 },
      data: { name: 'question', example: 'What is 1 times 3?' },
    },
    {
      id: 'draft',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'DRAFT {{ question }}' },
    },
    {
      id: 'final',
      type: 'agent',
      position: { x: 400, y: 0 },
      data: { model: 'm', prompt: 'FINAL {{ question }} given {{ draft }}' },
    },
    { id: 'answer', type: 'output', position: { x: 600, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    {
      id: 'a',
      source: 'question',
      sourceHandle: 'value',
      target: 'draft',
      targetHandle: 'question',
    },
    {
      id: 'b',
      source: 'question',
      sourceHandle: 'value',
      target: 'final',
      targetHandle: 'question',
    },
    { id: 'c', source: 'draft', sourceHandle: 'text', target: 'final', targetHandle: 'draft' },
    { id: 'd', source: 'final', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
  ],
};

/** What the server says to a prompt of ARITH_DOCUMENT: 12 prompt and 5 completion tokens. */
export function arithReply(prompt: string) {
  const n = Number(/What is (\d+) times/.exec(prompt)?.[1]);
  const text = prompt.startsWith('DRAFT')
    ? `I think about ${n}`
    : `The answer is ${n <= ARITH_RIGHT ? n * 3 : n * 3 + 1}.`;
  return { text, usage: { prompt_tokens: 12, completion_tokens: 5 } };
}

/** The rows as JSON Lines. */
export const arithJsonl = () => `${ARITH_ROWS.map((r) => JSON.stringify(r)).join('\n')}\n`;

/**
 * `society eval FILE` over the arithmetic rows in `data`, the question input fed from the
 * column of that name and scored against `answer`, into the store `db`; `extra` adds the rest
 * (the provider, a queue, `--json`).
 */
export function arithEvalArgs(file: string, data: string, db: string, extra: string[] = []) {
  return [
    'eval',
    file,
    '--data',
    data,
    '--map',
    'question=question',
    '--expect',
    'answer',
    '--db',
    db,
    ...extra,
  ];
}
