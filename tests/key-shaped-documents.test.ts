/**
 * A key pasted into a document travels with it. `society export` refuses such a run as the
 * editor's Export refuses such a document (exit 2, naming the JSON path, never the value, no
 * file written); `society validate` warns; a queued eval refuses before it reaches Redis.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

// Shaped like an OpenAI key, held by no variable: only its shape gives it away.
const PASTED = 'sk-proj-PASTEDbyMISTAKE0123456789';

const society = {
  version: 1,
  name: 'pasted',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', example: 'hi' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: `Use the key ${PASTED} to answer {{ q }}` },
    },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

let dir: string;
let doc: string;
let db: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'society-key-shaped-'));
  doc = join(dir, 'pasted.society.json');
  db = join(dir, 'runs.db');
  writeFileSync(doc, JSON.stringify(society));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('key-shaped strings in documents', () => {
  it('validate warns, naming the path and not the value (exit 0)', async () => {
    const result = await societyHere(['validate', doc]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `${doc}: warning: nodes[1].data.prompt holds what looks like a key;`,
    );
    expect(result.stdout + result.stderr).not.toContain('PASTEDbyMISTAKE');
  });

  it('export refuses the run (exit 2), names the path, prints no value, writes no file', async () => {
    const run = await societyHere(['run', doc, '--simulate', '-q', '--db', db]);
    expect(run.code).toBe(0);
    const runId = /run ([0-9a-f]{8,})/.exec(run.stderr)![1]!;
    const file = join(dir, 'pasted.run.json');
    const result = await societyHere(['export', runId, '-o', file, '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^society: not exported: document\.nodes\[1\]\.data\.prompt holds what looks like a key\. .* and export again\n$/,
    );
    expect(result.stdout + result.stderr).not.toContain('PASTEDbyMISTAKE');
    expect(existsSync(file)).toBe(false);
  });

  it('a queued eval refuses the document before it connects to Redis', async () => {
    // Stands where Redis would: it counts every connection the eval opens.
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const data = join(dir, 'rows.jsonl');
    writeFileSync(data, `${JSON.stringify({ q: 'hello', expected: 'hello' })}\n`);
    // The queue's secret is given, so what refuses is the document.
    const secret = join(dir, 'queue.secret');
    writeFileSync(secret, 'a-queue-secret-for-the-key-test');
    try {
      const result = await societyHere([
        'eval',
        doc,
        '--data',
        data,
        '--map',
        'q=q',
        '--expect',
        'expected',
        '--simulate',
        '--queue',
        `redis://127.0.0.1:${port}`,
        '--queue-secret-file',
        secret,
        '--db',
        db,
        '-q',
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^society: --queue: not queued: the document of variant default holds what looks like a key at nodes\[1\]\.data\.prompt\. /,
      );
      expect(result.stdout + result.stderr).not.toContain('PASTEDbyMISTAKE');
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
