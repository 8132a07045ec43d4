/**
 * The queue as an attacker who can write to Redis sees it, against a real Redis (Debian's
 * redis-server at a free port), real `society worker` processes and local servers that count
 * what reaches them: forged jobs make no request and are refused in the worker's log; a queued
 * eval leaves no copy of a key in Redis or in a worker's store; an eval survives Redis
 * restarting empty under it. Skipped, with a message, where redis-server is not installed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedJob } from '../app/eval/queue/wire.ts';
import type { EvalSummary } from '../app/eval/types.ts';
import { openRunStore } from '../app/store/index.ts';
import {
  ARITH_DOCUMENT,
  ARITH_ROWS,
  arithEvalArgs,
  arithJsonl,
  arithReply,
} from './support/arith-eval.ts';
import { society } from './support/cli.ts';
import { type LocalRedis, REDIS_SERVER, startRedis } from './support/redis.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';
import {
  startWorker as startQueueWorker,
  stopWorker,
  stopWorkers,
  type Worker,
} from './support/worker.ts';

const SECRET = 'queue-trust-test-secret-0123456789';
/** A key value, in a variable whose name does not look like a key's. */
const MARKER = 'mk-7f3a9c1e5b2d4806-marker';

if (!REDIS_SERVER)
  console.warn(
    'queue-trust tests skipped: redis-server is not installed (apt-get install redis-server)',
  );

let dir: string;

/** Starts `society worker` with the queue's secret and locks of 1 s. */
const startWorker = (url: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  startQueueWorker(url, args, {
    SOCIETY_QUEUE_LOCK_MS: '1000',
    SOCIETY_QUEUE_SECRET: SECRET,
    ...env,
  });

/** Every value in Redis, read by type (a DUMP may be compressed), as one text. */
async function everything(client: Redis): Promise<string> {
  const parts: string[] = [];
  for (const key of await client.keys('*')) {
    parts.push(key);
    const type = await client.type(key);
    if (type === 'string') parts.push((await client.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
    else if (type === 'list') parts.push(JSON.stringify(await client.lrange(key, 0, -1)));
    else if (type === 'set') parts.push(JSON.stringify(await client.smembers(key)));
    else if (type === 'zset') parts.push(JSON.stringify(await client.zrange(key, '0', '-1')));
    else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(key, '-', '+')));
    const dump = await client.dumpBuffer(key);
    if (dump) parts.push(dump.toString('latin1'));
  }
  return parts.join('\n');
}

const copies = (text: string, marker: string) => text.split(marker).length - 1;

/** A document whose model is reached through the provider `provider`. */
const documentVia = (provider: string) =>
  JSON.stringify({
    ...ARITH_DOCUMENT,
    models: { m: { provider, model: 'gpt-4o-mini', maxTokens: 20 } },
  });

async function until(condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 25) {
    if (waited > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!REDIS_SERVER)('a queue whose Redis anyone may write to', () => {
  let redis: LocalRedis;
  /** The server a forger wants keys sent to. */
  let attacker: StubOpenAI;
  /** The server the worker's own profile names. */
  let good: StubOpenAI;
  let attackerAuth: string[];
  /** A provider that says back the key it was sent: whatever it answers is stored. */
  let echo: StubOpenAI;
  const seen: string[] = [];
  /** One worker for every test: its own profiles openai (good) and local (echo, key by name). */
  let worker: Worker;
  let workerDb: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-trust-'));
    redis = await startRedis();
    attackerAuth = [];
    attacker = await startStubOpenAI({
      respond: (_body, ctx) => {
        attackerAuth.push(String(ctx.headers.authorization));
        return { text: 'stolen' };
      },
    });
    good = await startStubOpenAI({
      latencyMs: 120,
      respond: (body) => arithReply(String(body.messages.at(-1).content)),
    });
    echo = await startStubOpenAI({
      respond: (body, ctx) => {
        seen.push(String(ctx.headers.authorization));
        return {
          text: `${arithReply(String(body.messages.at(-1).content)).text} (you sent ${ctx.headers.authorization})`,
        };
      },
    });
    workerDb = join(dir, 'worker.db');
    worker = await startWorker(
      redis.url,
      [
        '--db',
        workerDb,
        '--provider',
        `openai=${good.url}`,
        '--provider',
        `local=${echo.url},key=LOCAL_LLM_ACCESS`,
      ],
      {
        AWS_SECRET_ACCESS_KEY: 'aws-secret-value-0123456789',
        DATABASE_URL: 'postgres://u:p@db/x',
        LOCAL_LLM_ACCESS: MARKER,
      },
    );
  }, 30_000);
  afterAll(async () => {
    await stopWorkers();
    await attacker?.close();
    await good?.close();
    await echo?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses forged jobs with no request sent, and runs a signed job naming its own profile', async () => {
    const queue = new Queue('eval-jobs', {
      connection: { url: redis.url, maxRetriesPerRequest: null },
      prefix: 'society',
    });
    try {
      const job = (item: number, provider = 'openai') => ({
        evalId: 'forged',
        item,
        variant: 'default',
        jobKey: `k${item}`,
        documentText: documentVia(provider),
        inputs: { question: ARITH_ROWS[item]!.question },
        blobs: [],
        mode: 'live' as const,
      });
      const steal = (variable: string) => ({
        openai: { baseUrl: attacker.url, apiKeyEnv: variable },
      });
      const forged: Record<string, unknown> = {
        // Unsigned, carrying a URL and a key variable, as before.
        unsigned: { ...job(0), providerOverrides: steal('AWS_SECRET_ACCESS_KEY') },
        // Signed with a secret the forger guessed.
        misSigned: queuedJob(job(1), 'a-guessed-secret-0123456789'),
        // Signed, then given a URL of its own.
        tampered: { ...queuedJob(job(2), SECRET), providerOverrides: steal('DATABASE_URL') },
        // Signed (by someone holding the secret) but naming a profile this worker lacks.
        lacking: queuedJob(
          { ...job(3, 'elsewhere'), providerOverrides: { elsewhere: {} } },
          SECRET,
        ),
      };
      for (const [id, data] of Object.entries(forged)) await queue.add(id, data, { jobId: id });
      await queue.add(
        'signed',
        queuedJob({ ...job(4), providerOverrides: { openai: {} } }, SECRET),
        {
          jobId: 'signed',
        },
      );
      await until(async () => {
        const states = await Promise.all(
          [...Object.keys(forged), 'signed'].map((id) => queue.getJobState(id)),
        );
        return states.every((s) => s === 'failed' || s === 'completed');
      });
      for (const id of Object.keys(forged)) expect(await queue.getJobState(id)).toBe('failed');
      expect(await queue.getJobState('signed')).toBe('completed');
      expect(attacker.count()).toBe(0);
      expect(attackerAuth).toEqual([]);
      // The signed job ran, against the worker's own profile: two calls.
      expect(good.count()).toBe(2);
      const log = worker.lines.join('\n');
      expect(log).toMatch(/refuse job unsigned: the job carries provider settings of its own/);
      expect(log).toMatch(/refuse job misSigned: the job is mis-signed/);
      expect(log).toMatch(/refuse job tampered: the job carries provider settings of its own/);
      expect(log).toMatch(
        /refuse item 4 · default · eval forged: the job names provider profile elsewhere, which this worker does not have/,
      );
      expect(log).toMatch(/done {2}item 5 · default · eval forged · succeeded/);
      expect(log).not.toMatch(/run {3}item [1-4] /);
      // An unsigned job carrying nothing suspicious is refused as unsigned.
      await queue.add('plain', job(5), { jobId: 'plain' });
      await until(async () => (await queue.getJobState('plain')) === 'failed');
      expect(worker.lines.join('\n')).toMatch(/refuse job plain: the job is unsigned/);
      expect(good.count()).toBe(2);
    } finally {
      // What the forger left is no eval's: gone before the next test looks at Redis.
      await queue.close();
      const client = new Redis(redis.url);
      await client.flushall();
      client.disconnect();
    }
  }, 30_000);

  it('keeps a --provider key variable out of Redis and the worker store, live and after', async () => {
    const client = new Redis(redis.url);
    try {
      const file = join(dir, 'local.society.json');
      const data = join(dir, 'q.jsonl');
      writeFileSync(file, documentVia('local'));
      writeFileSync(data, arithJsonl());
      let live = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          live = Math.max(live, copies(await everything(client), MARKER));
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const result = await society(
        arithEvalArgs(file, data, join(dir, 'marker-coordinator.db'), [
          '--limit',
          '4',
          '--variant',
          `default=--provider local=${echo.url},key=LOCAL_LLM_ACCESS`,
          '--queue',
          redis.url,
          '--json',
        ]),
        { LOCAL_LLM_ACCESS: MARKER, SOCIETY_QUEUE_SECRET: SECRET },
      );
      sampling = false;
      await sampler;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/workers reach local through their own profiles/);
      expect((JSON.parse(result.stdout) as EvalSummary).variants[0]!.n).toBe(4);
      // The key did go out, and came back in every answer.
      expect(seen).toHaveLength(8);
      expect(seen.every((auth) => auth === `Bearer ${MARKER}`)).toBe(true);
      expect(live).toBe(0);
      const after = await everything(client);
      expect(copies(after, MARKER)).toBe(0);
      // Cleared: no export and no cassette left, and no run's events in what Redis keeps.
      expect(await client.keys('society:export:*')).toEqual([]);
      expect(after).not.toContain('run.finished');
      for (const file of [workerDb, `${workerDb}-wal`, join(dir, 'marker-coordinator.db')])
        if (existsSync(file)) expect(copies(readFileSync(file, 'latin1'), MARKER)).toBe(0);
    } finally {
      client.disconnect();
    }
  }, 30_000);

  it('finishes an eval in the same session when Redis restarts empty under it, three times', async () => {
    {
      const file = join(dir, 'restart.society.json');
      const data = join(dir, 'restart.jsonl');
      writeFileSync(file, JSON.stringify(ARITH_DOCUMENT));
      writeFileSync(data, arithJsonl());
      const db = join(dir, 'restart.db');
      const done = () => worker.lines.filter((l) => l.startsWith('done')).length;
      const running = society(
        arithEvalArgs(file, data, db, [
          '--scorer',
          'number',
          '--variant',
          `default=--provider openai=${good.url}`,
          '--queue',
          redis.url,
          '--json',
        ]),
        { SOCIETY_QUEUE_SECRET: SECRET, SOCIETY_QUEUE_LOCK_MS: '1000' },
      );
      let finished = false;
      void running.then(() => {
        finished = true;
      });
      // Each restart comes after a job finished since the last one: the eval is mid-way.
      let restarts = 0;
      for (let i = 0; i < 3 && !finished; i++) {
        const before = done();
        await until(() => done() > before || finished);
        if (finished) break;
        await redis.restart();
        restarts++;
      }
      const result = await running;
      expect(restarts).toBe(3);
      expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as EvalSummary;
      expect(summary.variants[0]).toMatchObject({ n: 10, failed: 0 });
      const store = openRunStore(db);
      try {
        const items = store.evalItems(summary.evalId);
        expect(items.map((i) => `${i.item}:${i.status}`)).toEqual(
          ARITH_ROWS.map((_, i) => `${i}:scored`),
        );
        expect(new Set(items.map((i) => i.runId)).size).toBe(10);
        expect(store.listRuns({ limit: 100 })).toHaveLength(10);
      } finally {
        store.close();
      }
    }
  }, 30_000);
});

describe.skipIf(!REDIS_SERVER)('a Redis with users and databases', () => {
  it('takes redis://USER:PASSWORD@HOST:PORT/DB, keeps the eval in that database and never prints the password', async () => {
    const password = 'alice-pass-9c1e5b2d';
    const server = await startRedis([
      '--user',
      'alice',
      'on',
      `>${password}`,
      '~*',
      '&*',
      '+@all',
      '--user',
      'default',
      'off',
    ]);
    const url = `redis://alice:${password}@127.0.0.1:${server.port}/3`;
    const local = mkdtempSync(join(tmpdir(), 'society-acl-'));
    let running: Worker | undefined;
    const client = new Redis(url);
    try {
      running = await startWorker(url, ['--db', join(local, 'worker.db')]);
      const file = join(local, 'arith.society.json');
      const data = join(local, 'q.jsonl');
      writeFileSync(file, JSON.stringify(ARITH_DOCUMENT));
      writeFileSync(data, arithJsonl());
      const simulated = (db: string, queue: string) =>
        society(
          arithEvalArgs(file, data, join(local, db), [
            '--limit',
            '2',
            '--simulate',
            '--queue',
            queue,
          ]),
          {
            SOCIETY_QUEUE_SECRET: SECRET,
          },
        );
      const [wrong, result] = await Promise.all([
        simulated('w.db', url.replace(password, 'not-the-password')),
        simulated('q.db', url),
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(running.lines.filter((l) => l.startsWith('done'))).toHaveLength(2);
      // The eval's keys are in database 3 (BullMQ's event stream stays), none in database 0.
      expect((await client.keys('society:*')).length).toBeGreaterThan(0);
      await client.select(0);
      expect(await client.keys('*')).toEqual([]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(
        /^society: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+\/3: /,
      );
      for (const text of [result.stderr, wrong.stderr, running.lines.join('\n')])
        expect(text).not.toContain(password);
    } finally {
      client.disconnect();
      if (running) await stopWorker(running.child);
      await server.stop();
      rmSync(local, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('a queue that would carry a key', () => {
  it('is refused before anything is queued: no secret, or a key in a dataset row', async () => {
    const local = mkdtempSync(join(tmpdir(), 'society-keyed-'));
    try {
      const file = join(local, 'arith.society.json');
      const data = join(local, 'q.jsonl');
      writeFileSync(file, JSON.stringify(ARITH_DOCUMENT));
      writeFileSync(
        data,
        `${JSON.stringify({ question: 'What is sk-proj-abcdefgh12345678 times 3?', answer: '3' })}\n`,
      );
      const unreachable = 'redis://127.0.0.1:1';
      const [noSecret, keyed] = await Promise.all([
        society(['worker', '--queue', unreachable], { SOCIETY_QUEUE_SECRET: '' }),
        society(
          arithEvalArgs(file, data, join(local, 'x.db'), ['--simulate', '--queue', unreachable]),
          { SOCIETY_QUEUE_SECRET: SECRET },
        ),
      ]);
      expect(noSecret.code).toBe(2);
      expect(noSecret.stderr).toMatch(
        /^society: --queue needs the secret the coordinator and its workers share: set SOCIETY_QUEUE_SECRET or give --queue-secret-file FILE.*openssl rand -hex 32.*\n$/,
      );
      expect(keyed.code).toBe(2);
      expect(keyed.stderr).toMatch(
        /society: item 1 · default: its inputs hold a key \(or a string shaped like one\); it would be written to Redis, so the eval is not queued/,
      );
      expect(keyed.stderr).not.toContain('sk-proj-abcdefgh12345678');
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  }, 20_000);
});
