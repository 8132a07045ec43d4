/**
 * The fault matrix: `society run` against a server that goes wrong in every way we know of.
 * Each run must end with exit 1 and one line saying what went wrong (no stack, no SDK notes),
 * quickly, with the run recorded as failed in a store that is still whole and readable.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { formatRun } from '../app/cli/runs.ts';
import { openRunStore } from '../app/store/index.ts';
import { society } from './support/cli.ts';
import {
  brokenJson,
  cutStream,
  hang,
  htmlPage,
  hugeAnswer,
  resetConnection,
} from './support/faults.ts';
import { type StubReply, startStubOpenAI, stubError } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-faults-'));

/** input → agent → output, on provider `openai`, with small retries and a short timeout. */
function societyFile(name: string, stream: boolean, timeoutMs: number): string {
  const path = join(dir, `${name.replaceAll(/\W+/g, '-')}.society.json`);
  const at = { x: 0, y: 0 };
  const doc = {
    version: 1,
    name,
    models: { m: { provider: 'openai', model: 'gpt-test' } },
    settings: { retry: { attempts: 2, baseMs: 5, maxMs: 200 }, timeoutMs },
    nodes: [
      { id: 'q', type: 'input', position: at, data: { name: 'q' } },
      { id: 'a', type: 'agent', position: at, data: { model: 'm', prompt: '{{ q }}', stream } },
      { id: 'out', type: 'output', position: at, data: { name: 'answer' } },
    ],
    edges: [
      { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
      { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
    ],
  };
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

interface Fault {
  name: string;
  reply: () => StubReply;
  stream?: boolean;
  /** Per-call timeout; short by default so a server that never answers fails fast. */
  timeoutMs?: number;
  /** The error, `URL` standing for the stub's base URL. */
  error: string;
}

const FAULTS: Fault[] = [
  {
    name: '429 with Retry-After: 120 while retry.maxMs is 200',
    reply: () =>
      stubError(429, 'Rate limit reached for requests', {
        code: 'rate_limit_exceeded',
        headers: { 'retry-after': '120' },
      }),
    error:
      'HTTP 429 Too Many Requests: Rate limit reached for requests; the server asked to wait 120 s before trying again, longer than settings.retry.maxMs (200 ms)',
  },
  {
    name: '500 forever',
    reply: () => stubError(500, 'The server had an error'),
    error: 'gave up after 2 attempts: HTTP 500 Internal Server Error: The server had an error',
  },
  {
    name: 'a connection reset',
    reply: resetConnection,
    error:
      'gave up after 2 attempts: openai (URL) closed the connection before answering (other side closed)',
  },
  {
    name: 'a truncated event stream',
    reply: cutStream,
    stream: true,
    error:
      'gave up after 2 attempts: openai (URL) closed the connection in the middle of the answer',
  },
  {
    name: 'invalid JSON',
    reply: brokenJson,
    error: 'gave up after 2 attempts: openai (URL) answered with JSON that does not parse (',
  },
  {
    name: 'an HTML page with status 200',
    reply: () => htmlPage(200),
    error: 'openai (URL) answered with an HTML page, not JSON (HTTP 200, text/html)',
  },
  {
    name: 'a server that never answers',
    reply: hang,
    error: 'gave up after 2 attempts: model call timed out after 500 ms',
  },
  {
    name: 'a 200 MB answer',
    reply: () => hugeAnswer(false),
    // Long enough to read 8 MiB on a loaded machine: the limit, not the clock, must stop it.
    timeoutMs: 30_000,
    error: 'answer from openai (URL) went past 8 MiB (settings.limits.answerBytes)',
  },
  {
    name: 'a 200 MB event stream',
    reply: () => hugeAnswer(true),
    stream: true,
    timeoutMs: 30_000,
    error: 'answer from openai (URL) went past 8 MiB (settings.limits.answerBytes)',
  },
];

/**
 * The faults run side by side (vitest runs up to five at once), each a real `society` process:
 * about a second and a half of CPU apiece, so a test's own time stretches with the others
 * sharing the cores. The timeout leaves room for that on a loaded machine.
 */
const FAULT_TIMEOUT_MS = 40_000;

describe(`society run against ${FAULTS.length} server faults`, () => {
  it.concurrent.each(FAULTS)(
    '$name: exit 1, one line, a whole store',
    async (fault) => {
      const stub = await startStubOpenAI({ respond: fault.reply });
      const db = join(dir, `${fault.name.replaceAll(/\W+/g, '-')}.db`);
      try {
        const file = societyFile(fault.name, fault.stream === true, fault.timeoutMs ?? 500);
        const result = await society(
          ['run', file, '--provider', `openai=${stub.url}`, '--input', 'q=hello', '-q'],
          { SOCIETY_DB: db },
        );
        const expected = `node "a": ${fault.error.replace('URL', stub.url)}`;
        expect(result.code).toBe(1);
        // The summary, then the one line that says what went wrong: nothing else.
        const lines = result.stderr.trimEnd().split('\n');
        expect(lines).toHaveLength(2);
        expect(lines[0]).toMatch(/^failed · /);
        expect(lines[1]?.startsWith(`society: ${expected}`)).toBe(true);

        const sqlite = new Database(db, { readonly: true });
        let runId: string;
        try {
          expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
          const runs = sqlite.prepare('SELECT id, status, error FROM runs').all() as Array<{
            id: string;
            status: string;
            error: string;
          }>;
          expect(runs).toHaveLength(1);
          expect(runs[0]?.status).toBe('failed');
          expect(runs[0]?.error.startsWith(expected)).toBe(true);
          runId = runs[0]?.id ?? '';
        } finally {
          sqlite.close();
        }
        // What `society show` prints, read in this process: one child process per fault is
        // enough for the matrix to stay quick (the command itself is run once, below).
        const store = openRunStore(db);
        try {
          const run = store.getRun(runId);
          expect(run?.status).toBe('failed');
          expect(formatRun(run!, store.events(runId))).toContain(expected.slice(0, 40));
        } finally {
          store.close();
        }
        if (fault === FAULTS[0]) {
          const show = await society(['show', runId], { SOCIETY_DB: db });
          expect(show.code).toBe(0);
          expect(show.stdout).toContain('failed');
        }
      } finally {
        await stub.close();
      }
    },
    FAULT_TIMEOUT_MS,
  );
});

describe('society validate on documents past their bounds', () => {
  it('refuses a 20,000-deep value and a million replicas with exit 2, one line each', async () => {
    const base = JSON.parse(readFileSync(societyFile('bounds', false, 500), 'utf8'));
    const deep = join(dir, 'deep.society.json');
    base.nodes[1].data.ui = 'DEEP';
    writeFileSync(
      deep,
      JSON.stringify(base).replace('"DEEP"', `${'['.repeat(20_000)}0${']'.repeat(20_000)}`),
    );
    const replicas = join(dir, 'replicas.society.json');
    base.nodes[1].data.ui = {};
    base.nodes[1].data.replicate = { items: Array.from({ length: 1_000_000 }, (_, i) => i) };
    base.settings.budget = { maxCalls: 100 };
    writeFileSync(replicas, JSON.stringify(base));

    const result = await society(['validate', deep, replicas]);
    expect(result.code).toBe(2);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      `${deep}: node "a" (nodes[1].data.ui${'[0]'.repeat(60)}): nested too deep: a document nests at most 64 levels`,
      `${replicas}: node "a" (nodes[1].data.replicate.items): 1,000,000 items: a node or group makes at most 1,000 copies`,
    ]);
    expect(result.stderr).toBe('');
  });
});
