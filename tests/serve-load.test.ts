/**
 * `society serve` under load and after a crash, against a local stub of the OpenAI protocol:
 * 20 concurrent runs at 100 ms model latency, 3 at a time, all answered and none lost, the rest
 * queued (seen in the server's load, not guessed from timings) and refused with 429 once the
 * queue is full; a server killed with SIGKILL mid-run leaves its runs to be marked interrupted
 * by the next start, and `society resume` finishes each one.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeFlags, serveOptions } from '../app/cli/commands/serve/serve.ts';
import { serve } from '../app/serve/index.ts';
import { openRunStore } from '../app/store/index.ts';
import { ROOT, societyHere } from './support/cli.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { echoReply, type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const TOKEN = 'test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'society-serve-load-'));
const file = join(dir, 'echo.society.json');

/** Until the test opens it, the stub holds every model call it receives (a gate). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Polls `done` (a state, never a duration) until it holds. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

interface RunView {
  id: string;
  status: string;
  outputs?: Record<string, unknown>;
}

let stub: StubOpenAI;
let hold = gate();

beforeAll(async () => {
  // 100 ms of model latency on every call; held calls wait for the gate besides.
  stub = await startStubOpenAI({
    latencyMs: 100,
    respond: async (body, ctx) => {
      await Promise.race([
        hold.opened,
        new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true })),
      ]);
      return echoReply(body);
    },
  });
  writeFileSync(
    file,
    JSON.stringify(
      graph(
        [input('question'), agent('a', 'Answer: {{ question }}'), output('answer')],
        [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
        { models: { m: { provider: 'stub', model: 'stub-model' } }, name: 'echo society' },
      ),
    ),
  );
});
afterAll(async () => stub?.close());

async function startInProcess(extra: Partial<ServeFlags>) {
  const db = join(dir, `runs-${Math.random().toString(36).slice(2)}.db`);
  const { options, close } = await serveOptions([file], {
    port: '0',
    host: '127.0.0.1',
    token: TOKEN,
    auth: true,
    concurrency: '3',
    queueLimit: '20',
    maxBody: '65536',
    provider: [`stub=${stub.url}`],
    allowHost: [],
    db,
    ...extra,
  });
  const serving = await serve(options);
  return {
    serving,
    db,
    stop: async () => {
      await serving.close();
      close();
    },
  };
}

const ask = (url: string, question: string) =>
  fetch(`${url}/societies/echo/runs`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ inputs: { question } }),
  });

describe('society serve under load', () => {
  it('runs 20 concurrent requests 3 at a time, queues the rest, and loses none', {
    timeout: 60_000,
  }, async () => {
    hold = gate();
    const server = await startInProcess({ concurrency: '3', queueLimit: '20' });
    try {
      const { url } = server.serving;
      const accepted = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await ask(url, `question ${i}`);
          expect(res.status).toBe(202);
          return (await res.json()) as RunView;
        }),
      );
      // Every request is in, no model call has answered: 3 run, 17 wait their turn.
      expect(server.serving.runner.load).toEqual({ running: 3, queued: 17 });
      const statuses = accepted.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 'running')).toHaveLength(3);
      expect(statuses.filter((s) => s === 'queued')).toHaveLength(17);
      await until(() => stub.inFlight() === 3, 'three model calls in flight');
      hold.open();

      const ended = await Promise.all(
        accepted.map(
          async (r) =>
            (await (
              await fetch(`${url}/runs/${r.id}?wait=1`, { headers: auth })
            ).json()) as RunView,
        ),
      );
      expect(ended.map((r) => r.status)).toEqual(Array(20).fill('succeeded'));
      expect(stub.peakConcurrency()).toBe(3);
      const store = openRunStore(server.db);
      try {
        const stored = accepted.map((r) => store.getRun(r.id));
        expect(new Set(stored.map((r) => r?.id)).size).toBe(20);
        expect(stored.map((r) => [r?.status, r?.outputs])).toEqual(
          Array.from({ length: 20 }, (_, i) => [
            'succeeded',
            { answer: `echo: Answer: question ${i}` },
          ]),
        );
      } finally {
        store.close();
      }
    } finally {
      hold.open();
      await server.stop();
    }
  });

  it('refuses requests beyond a small queue with 429 and Retry-After', {
    timeout: 30_000,
  }, async () => {
    hold = gate();
    const server = await startInProcess({ concurrency: '1', queueLimit: '2' });
    try {
      const { url } = server.serving;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => ask(url, `question ${i}`)),
      );
      const accepted = answers.filter((r) => r.status === 202);
      const refused = answers.filter((r) => r.status === 429);
      expect([accepted.length, refused.length]).toEqual([3, 3]);
      for (const res of refused) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
          /the server is busy \(1 running, 2 waiting\)/,
        );
      }
      hold.open();
      const ended = await Promise.all(
        accepted.map(async (res) => {
          const { id } = (await res.json()) as RunView;
          return (
            (await (await fetch(`${url}/runs/${id}?wait=1`, { headers: auth })).json()) as RunView
          ).status;
        }),
      );
      expect(ended).toEqual(['succeeded', 'succeeded', 'succeeded']);
    } finally {
      hold.open();
      await server.stop();
    }
  });
});

/** `society serve` in its own process; resolves once it says where it listens. */
function serveProcess(
  db: string,
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.OPENAI_API_KEY;
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/society.js'),
      'serve',
      file,
      '--db',
      db,
      '--port',
      '0',
      '--token',
      TOKEN,
      '--concurrency',
      '3',
      '--provider',
      `stub=${stub.url}`,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      stderr += d;
      const url = / at (http:\/\/\S+) /.exec(stderr)?.[1];
      if (url) resolve({ child, url, stderr: () => stderr });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`society serve exited (${code}): ${stderr}`)));
  });
}

function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

describe('society serve killed mid-run', () => {
  it('leaves its runs interrupted at the next start, and society resume finishes them', {
    timeout: 90_000,
  }, async () => {
    hold = gate();
    const db = join(dir, 'crash.db');
    const first = await serveProcess(db);
    let second: Awaited<ReturnType<typeof serveProcess>> | undefined;
    try {
      const before = stub.count();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await ask(first.url, `crash ${i}`);
        expect(res.status).toBe(202);
        ids.push(((await res.json()) as RunView).id);
      }
      // Mid-run for sure: the model has received each run's call, and answers none.
      await until(() => stub.count() - before === 3, 'the three model calls');
      await killed(first.child, 'SIGKILL');

      second = await serveProcess(db);
      for (const id of ids) {
        const res = await fetch(`${second.url}/runs/${id}`, { headers: auth });
        expect(((await res.json()) as RunView).status).toBe('interrupted');
      }
      await killed(second.child, 'SIGTERM');
      second = undefined;

      hold.open();
      for (const [i, id] of ids.entries()) {
        const resumed = await societyHere([
          'resume',
          id,
          '--db',
          db,
          '--provider',
          `stub=${stub.url}`,
          '--json',
          '-q',
        ]);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(JSON.parse(resumed.stdout).outputs).toEqual({ answer: `echo: Answer: crash ${i}` });
      }
      const store = openRunStore(db);
      try {
        for (const [i, id] of ids.entries())
          expect(store.getRun(id)).toMatchObject({
            status: 'succeeded',
            outputs: { answer: `echo: Answer: crash ${i}` },
          });
      } finally {
        store.close();
      }
    } finally {
      hold.open();
      await killed(first.child, 'SIGKILL');
      if (second) await killed(second.child, 'SIGKILL');
    }
  });
});
