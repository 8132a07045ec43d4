/**
 * Keys never leave the environment: after a run that used a key — against a server that even
 * echoes it back in every answer — no byte of the key is in the run store, the event log, the
 * cassette, the export or anything the command printed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { society } from './support/cli.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

// Made up at run time so no key-shaped text is ever committed.
const KEY = `sk-test${randomBytes(24).toString('hex')}`;

const doc = {
  version: 1,
  name: 'key test',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 0, y: 0 },
      data: { model: 'm', prompt: 'Answer: {{ q }}' },
    },
    {
      id: 'b',
      type: 'agent',
      position: { x: 0, y: 0 },
      data: { model: 'm', prompt: 'Check: {{ x }}' },
    },
    { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'b', targetHandle: 'x' },
    { id: 'e3', source: 'b', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
let dir: string;
beforeAll(async () => {
  // A careless (or hostile) server that repeats the Authorization header in its answers.
  stub = await startStubOpenAI({
    respond: (_body, ctx) => ({ text: `you sent ${ctx.headers.authorization}` }),
  });
  dir = mkdtempSync(join(tmpdir(), 'society-keys-'));
});
afterAll(() => stub.close());

describe('a run with a key', () => {
  it('leaves no trace of the key in the database, events, cassette, export or output', async () => {
    const file = join(dir, 'doc.json');
    writeFileSync(file, JSON.stringify(doc));
    const db = join(dir, 'runs.db');
    const cassette = join(dir, 'calls.cassette.json');
    const events = join(dir, 'events.ndjson');
    const env = { OPENAI_API_KEY: KEY };
    const common = ['--db', db];
    const run = await society(
      [
        'run',
        file,
        '--input',
        'q=hello',
        '--provider',
        `openai=${stub.url},key=OPENAI_API_KEY`,
        '--record',
        cassette,
        '--events',
        events,
        '--json',
        ...common,
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    // The key was really used: the server received it.
    expect(stub.headers.map((h) => h.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const { runId, outputs } = JSON.parse(run.stdout);
    expect(outputs.answer).toContain('[redacted]');

    const exported = join(dir, 'run.json');
    const exportCmd = await society(['export', runId, '-o', exported, ...common], env);
    const show = await society(['show', runId, ...common], env);
    const list = await society(['runs', ...common], env);
    for (const r of [exportCmd, show, list]) expect(r.code, r.stderr).toBe(0);

    for (const f of [db, cassette, events, exported]) expect(existsSync(f), f).toBe(true);
    // The write-ahead log is folded into the database on close; search it too if it is there.
    const files = [db, `${db}-wal`, `${db}-shm`, cassette, events, exported].filter((f) =>
      existsSync(f),
    );
    const needle = Buffer.from(KEY);
    const secretPart = Buffer.from(KEY.slice(7)); // even without the sk-test prefix
    for (const f of files) {
      const bytes = readFileSync(f);
      expect(bytes.includes(needle), f).toBe(false);
      expect(bytes.includes(secretPart), f).toBe(false);
    }
    for (const r of [run, exportCmd, show, list]) {
      expect(r.stdout + r.stderr).not.toContain(KEY.slice(7));
    }
  });
});
