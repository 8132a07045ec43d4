/**
 * A dataset is someone else's data: the files its rows name (`--map INPUT=@FIELD`, `society nlsom
 * eval`'s photos) are read only inside the data file's folder (or `--files DIR`). A hostile
 * JSONL naming an absolute path, a `..` path and symlinks out gets each of those rows failed,
 * naming the rule, and the secret beside the folder never reaches the model.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagePathOf } from '../app/cli/commands/nlsom/eval.ts';
import type { EvalSummary } from '../app/eval/types.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const MARKER = 'OUTSIDE-SECRET-4f1c9e';
let root: string;
let data: string;
let outside: string;

const society = {
  version: 1,
  name: 'reader',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'note', type: 'input', position: { x: 0, y: 0 }, data: { name: 'note', example: 'x' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Summarise: {{ note }}' },
    },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'summary' } },
  ],
  edges: [
    { id: 'e1', source: 'note', sourceHandle: 'value', target: 'a', targetHandle: 'note' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'society-dataset-paths-'));
  const folder = join(root, 'data');
  mkdirSync(join(folder, 'notes'), { recursive: true });
  // The secret the hostile rows aim at, beside the data folder.
  outside = join(root, 'secret.txt');
  writeFileSync(outside, MARKER);
  mkdirSync(join(root, 'elsewhere'));
  writeFileSync(join(root, 'elsewhere', 'plan.txt'), MARKER);
  writeFileSync(join(folder, 'notes', 'tea.txt'), 'the history of tea');
  symlinkSync(outside, join(folder, 'notes', 'link.txt'));
  symlinkSync(join(root, 'elsewhere'), join(folder, 'linked-dir'));
  // A symlink that stays inside the folder is fine.
  symlinkSync(join(folder, 'notes', 'tea.txt'), join(folder, 'alias.txt'));
  writeFileSync(join(root, 'reader.society.json'), JSON.stringify(society));
  data = join(folder, 'rows.jsonl');
  writeFileSync(
    data,
    [
      { file: 'notes/tea.txt' },
      { file: outside },
      { file: '../secret.txt' },
      { file: 'notes/link.txt' },
      { file: 'linked-dir/plan.txt' },
      { file: 'alias.txt' },
      { file: '/proc/self/environ' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('dataset files', () => {
  it('fails each row whose file is outside the data folder, naming the rule; reads none of them', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    const stub = await startStubOpenAI({ respond: () => ({ text: 'a summary' }) });
    process.env.OPENAI_API_KEY = 'sk-dataset-paths-test-0123456789';
    process.env.OPENAI_BASE_URL = stub.url;
    const db = join(root, 'runs.db');
    const before = statSync(outside).atimeMs;
    try {
      const result = await societyHere([
        'eval',
        join(root, 'reader.society.json'),
        '--data',
        data,
        '--map',
        'note=@file',
        '--scorer',
        'cos',
        '--db',
        db,
        '--json',
        '-q',
      ]);
      const summary = JSON.parse(result.stdout) as EvalSummary;
      // Two rows inside the folder ran; the model saw their text and never the secret.
      expect(stub.count()).toBe(2);
      const sent = JSON.stringify(stub.requests);
      expect(sent).toContain('the history of tea');
      expect(sent).not.toContain(MARKER);
      expect(sent).not.toContain('PATH=');
      const store = openRunStore(db);
      try {
        const items = store.evalItems(summary.evalId).sort((a, b) => a.item - b.item);
        expect(items.map((i) => i.status === 'failed')).toEqual([
          false,
          true,
          true,
          true,
          true,
          false,
          true,
        ]);
        const errors = items.map((i) => i.error ?? '');
        expect(errors[1]).toMatch(/is an absolute path; a dataset names files relative to /);
        expect(errors[2]).toMatch(/"\.\.\/secret\.txt" steps out with "\.\."/);
        expect(errors[3]).toMatch(/"notes\/link\.txt" is a symlink .*leading out of /);
        expect(errors[4]).toMatch(/"linked-dir\/plan\.txt" is a symlink .*leading out of /);
        expect(errors[6]).toMatch(/"\/proc\/self\/environ" is an absolute path/);
        // Nothing stored anywhere holds the secret.
        const stored = JSON.stringify(
          items.flatMap((i) => (i.runId ? [store.getRun(i.runId)?.inputs] : [])),
        );
        expect(stored).not.toContain(MARKER);
      } finally {
        store.close();
      }
      // Not even opened: the secret's access time is as it was.
      expect(statSync(outside).atimeMs).toBe(before);
    } finally {
      await stub.close();
      for (const [name, value] of [
        ['OPENAI_API_KEY', saved.key],
        ['OPENAI_BASE_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('--files DIR is the only folder read', async () => {
    const result = await societyHere([
      'eval',
      join(root, 'reader.society.json'),
      '--data',
      data,
      '--map',
      'note=@file',
      '--files',
      join(root, 'nowhere'),
      '--scorer',
      'cos',
      '--simulate',
      '--db',
      join(root, 'runs2.db'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^society: --files .*nowhere: no such folder\n$/);
  });

  it("society nlsom eval's photos obey the same rules", () => {
    const folder = join(root, 'data');
    expect(imagePathOf('notes/tea.txt', folder, undefined)).toMatch(/tea\.txt$/);
    expect(imagePathOf('absent.jpg', folder, undefined)).toBeUndefined();
    // An absolute or `..` path is never used as written: only its file name, inside the folder.
    expect(imagePathOf(outside, folder, undefined)).toBeUndefined();
    expect(imagePathOf('../secret.txt', folder, undefined)).toBeUndefined();
    expect(imagePathOf('../../elsewhere/tea.txt', join(folder, 'notes'), undefined)).toMatch(
      /notes\/tea\.txt$/,
    );
    expect(imagePathOf('notes/link.txt', folder, undefined)).toEqual({
      refused: expect.stringMatching(/is a symlink/),
    });
    // Under --images DIR a photo is looked up by its file name, inside DIR only.
    expect(imagePathOf('val2017/link.txt', join(root, 'x'), join(folder, 'notes'))).toEqual({
      refused: expect.stringMatching(/is a symlink/),
    });
    expect(imagePathOf('val2017/tea.txt', join(root, 'x'), join(folder, 'notes'))).toMatch(
      /tea\.txt$/,
    );
  });
});
