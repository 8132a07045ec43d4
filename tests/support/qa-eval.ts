/**
 * A tiny eval for tests: a one-agent document and four rows, written to a temporary folder.
 * Simulated answers quote the start of the prompt, so `--scorer contains` scores some rows 1 and
 * others 0, and the charts have bars of different heights.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { societyHere } from './cli.ts';

/** One agent answering one question: the smallest document an eval can run. */
export const QA_DOCUMENT = {
  version: 1,
  name: 'one question',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    {
      id: 'question',
      type: 'input',
      position: { x: 0, y: 0 },
      data: { name: 'question', example: 'What colour is the sky?' },
    },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Answer briefly: {{ question }}' },
    },
    { id: 'answer', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'question', sourceHandle: 'value', target: 'a', targetHandle: 'question' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
  ],
};

/**
 * Rows whose answers the simulated provider's text contains for some items and not others (it
 * quotes the start of the prompt), so `--scorer contains` gives scores between 0 and 1.
 */
export const QA_ROWS = [
  { question: 'Is the sky blue?', answer: 'blue' },
  { question: 'Is grass green?', answer: 'green' },
  { question: 'What is 2+2?', answer: '4' },
  { question: 'Name a <b>bold</b> tag', answer: '<script>' },
];

/** Writes the document and its data into a new folder; returns their paths. */
export function writeQaEval(dir = mkdtempSync(path.join(tmpdir(), 'society-eval-'))) {
  const doc = path.join(dir, 'qa.society.json');
  const data = path.join(dir, 'data.jsonl');
  writeFileSync(doc, JSON.stringify(QA_DOCUMENT));
  writeFileSync(data, `${QA_ROWS.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return { dir, doc, data, db: path.join(dir, 'runs.db') };
}

/**
 * `society eval` over the tiny eval, simulated, two variants (small and big models), scored by
 * `contains`, printing JSON; into the store `db`, with the page written to `report` when given.
 */
export function qaEvalArgs(files: { doc: string; data: string }, db: string, report?: string) {
  return [
    'eval',
    files.doc,
    '--data',
    files.data,
    '--map',
    'question=question',
    '--expect',
    'answer',
    '--scorer',
    'contains',
    '--variant',
    'small=--model m=openai:gpt-4o-mini',
    '--variant',
    'big=--model m=openai:gpt-4o',
    '--simulate',
    '--json',
    '-q',
    '--db',
    db,
    ...(report === undefined ? [] : ['--report', report]),
  ];
}

/**
 * Runs the tiny eval into the store `db`, as a user's `society eval --db` would, and returns
 * its id: an eval for a test to find in the studio.
 */
export async function storeQaEval(db: string): Promise<string> {
  const files = writeQaEval();
  const run = await societyHere(qaEvalArgs(files, db, path.join(files.dir, 'report.html')));
  if (run.code !== 0) throw new Error(`society eval failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout).evalId;
}
