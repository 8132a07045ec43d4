/** `--report FILE.html` on `society eval` and `society eval-show`. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

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

describe('society eval --report', () => {
  const files = writeQaEval();
  const evalArgs = (report: string) => [
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
    files.db,
    '--report',
    report,
  ];
  let evalId = '';

  beforeAll(async () => {
    const result = await societyHere(evalArgs(path.join(files.dir, 'report.html')));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    evalId = JSON.parse(result.stdout).evalId;
  });

  it('writes the page after the run: table, charts, worst items with their run ids', async () => {
    const page = readFileSync(path.join(files.dir, 'report.html'), 'utf8');
    expect(page).toContain('<tr data-variant="small">');
    expect(page).toContain('<tr data-variant="big">');
    expect(page.match(/<g class="bar"/g)).toHaveLength(2);
    expect(page).toMatch(/data-simulated>\[simulated\] answers/);
    // Every item × variant is listed with its run id, and the row's markup is escaped.
    const runIds = page.match(/<code class="run-id">[0-9a-f]{8,}<\/code>/g) ?? [];
    expect(runIds.length).toBeGreaterThanOrEqual(8);
    expect(page).toContain('Name a &lt;b&gt;bold&lt;/b&gt; tag');
    expect(page).not.toContain('<script>');
  });

  it('eval-show ID --report writes the same page again', async () => {
    const again = path.join(files.dir, 'again.html');
    const result = await societyHere([
      'eval-show',
      evalId,
      '--report',
      again,
      '--db',
      files.db,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`report written to ${again}`);
    expect(readFileSync(again, 'utf8')).toBe(
      readFileSync(path.join(files.dir, 'report.html'), 'utf8'),
    );
  });

  it('refuses a path it cannot write before running anything: one line, exit 2', async () => {
    const missing = path.join(files.dir, 'no-such-folder', 'r.html');
    const result = await societyHere(evalArgs(missing));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `society: --report ${missing}: the folder ${path.dirname(missing)} does not exist`,
    );
    expect(result.stdout).toBe('');
    const folder = await societyHere([
      'eval-show',
      evalId,
      '--report',
      files.dir,
      '--db',
      files.db,
    ]);
    expect(folder.code).toBe(2);
    expect(folder.stderr.trim()).toBe(`society: --report ${files.dir}: is a folder, not a file`);
  });
});
