/**
 * `society eval --queue` with `society worker` processes on a real Redis (Debian's redis-server
 * at a free port) against a local OpenAI-compatible server whose answers are known: the table is
 * the local eval's, every item runs exactly once even when a worker is killed with SIGKILL
 * mid-eval, the runs read in the coordinating store like local ones, and rate limits hold across
 * workers. Skipped, with a message, where redis-server is not installed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary } from '../app/eval/types.ts';
import { openRunStore } from '../app/store/index.ts';
import {
  ARITH_DOCUMENT,
  ARITH_RIGHT,
  ARITH_ROWS,
  arithEvalArgs,
  arithJsonl,
  arithReply,
} from './support/arith-eval.ts';
import { ROOT, society, societyHere } from './support/cli.ts';
import { type LocalRedis, REDIS_SERVER, startRedis } from './support/redis.ts';
import { startStubOpenAI } from './support/stub-openai.ts';
import {
  startWorker as startQueueWorker,
  stopWorkers,
  type Worker,
  workers,
} from './support/worker.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));

if (!REDIS_SERVER)
  console.warn(
    'eval-queue tests skipped: redis-server is not installed (apt-get install redis-server)',
  );

let redis: LocalRedis;
let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
/** When each chat request arrived, in order. */
const arrivals: number[] = [];
let dir: string;
let file: string;
let data: string;
/** The workers the tests share; the kill test kills the first and starts another. */
let pool: Worker[];

/** Worker locks of 2 s: a killed worker's job is taken over within about 3 s. */
const WORKER_ENV = { SOCIETY_QUEUE_LOCK_MS: '2000' };
// The secret the coordinators (started by `society`, which passes this environment on) and the
// workers share.
process.env.SOCIETY_QUEUE_SECRET = 'eval-queue-test-secret-0123456789';

/** Starts `society worker` with a store of its own, reaching the stub through its own profile. */
function startWorker(extra: string[] = []): Promise<Worker> {
  return startQueueWorker(
    redis.url,
    [
      // A store of its own in the test's folder: a worker killed with SIGKILL cannot remove a
      // temporary one.
      '--db',
      join(dir, `worker-${workers.length}.db`),
      // The eval redirects openai to the stub; a worker reaches it through a profile of its own.
      '--provider',
      `openai=${stub.url}`,
      ...extra,
    ],
    WORKER_ENV,
  );
}

const evalArgs = (db: string, extra: string[] = []) =>
  arithEvalArgs(file, data, db, [
    '--scorer',
    'number',
    '--variant',
    `default=--provider openai=${stub.url}`,
    '--json',
    ...extra,
  ]);

/** The table without timings (those differ from run to run). */
const table = (summary: EvalSummary) =>
  summary.variants.map(({ latencyMs: _latency, ...rest }) => rest);

describe.skipIf(!REDIS_SERVER)('society eval --queue with society worker', () => {
  beforeAll(async () => {
    redis = await startRedis();
    stub = await startStubOpenAI({
      latencyMs: 100,
      respond: (body) => {
        arrivals.push(Date.now());
        const prompt = String(body.messages.at(-1).content);
        return arithReply(prompt);
      },
    });
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-queue-'));
    file = join(dir, 'arith.society.json');
    data = join(dir, 'questions.jsonl');
    writeFileSync(file, JSON.stringify(ARITH_DOCUMENT));
    writeFileSync(data, arithJsonl());
    pool = await Promise.all([startWorker(), startWorker()]);
  }, 30_000);
  afterAll(async () => {
    await stopWorkers();
    await stub?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives the local table with two workers, and its runs read as local ones', async () => {
    const db = join(dir, 'queued.db');
    const [local, queued] = await Promise.all([
      society(evalArgs(join(dir, 'local.db'), ['--concurrency', '4'])),
      society(evalArgs(db, ['--queue', redis.url])),
    ]);
    expect(local.code).toBe(0);
    expect(queued.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(queued.code).toBe(0);
    const summary = JSON.parse(queued.stdout) as EvalSummary;
    expect(summary.status).toBe('finished');
    expect(summary.variants[0]!.score.mean).toBe(ARITH_RIGHT / 10);
    expect(table(summary)).toEqual(table(JSON.parse(local.stdout) as EvalSummary));
    // The workers said what they ran. (A worker too slow to renew a job's lock may see it run
    // again elsewhere; only one of the two runs comes back.)
    const ran = pool.flatMap((w) => w.lines).filter((l) => l.startsWith('done')).length;
    expect(ran).toBeGreaterThanOrEqual(10);
    expect(queued.stderr).toMatch(/queue: 10 runs came back from/);

    const store = openRunStore(db);
    let runId: string;
    try {
      const items = store.evalItems(summary.evalId);
      expect(items.map((i) => i.status)).toEqual(Array(10).fill('scored'));
      for (const item of items) {
        const run = store.getRun(item.runId!)!;
        expect(run.status).toBe('succeeded');
        expect(store.events(run.id).at(-1)?.type).toBe('run.finished');
        expect(store.callRecord(run.id).entries).toHaveLength(2);
      }
      runId = items[0]!.runId!;
    } finally {
      store.close();
    }
    const show = await societyHere(['show', runId, '--db', db]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('two-step arithmetic');
    expect(show.stdout).toContain('What is 1 times 3?');
  }, 60_000);

  it('finishes with every item exactly once when a worker is killed with SIGKILL mid-eval', async () => {
    const [victim, survivor] = pool as [(typeof pool)[0], (typeof pool)[0]];
    const db = join(dir, 'killed.db');
    const from = survivor.lines.length;
    const victimFrom = victim.lines.length;
    const running = society(evalArgs(db, ['--queue', redis.url]));
    await until(() => victim.lines.slice(victimFrom).some((l) => l.startsWith('run')));
    victim.child.kill('SIGKILL');
    const result = await running;
    expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.status).toBe('finished');
    expect(summary.variants[0]).toMatchObject({
      n: 10,
      failed: 0,
      score: { mean: ARITH_RIGHT / 10 },
    });
    // The job the killed worker held was taken over and run again by the other.
    expect(survivor.lines.slice(from).some((l) => l.includes('taken over'))).toBe(true);
    const store = openRunStore(db);
    try {
      const items = store.evalItems(summary.evalId);
      expect(items.map((i) => `${i.item}:${i.status}`)).toEqual(
        ARITH_ROWS.map((_, i) => `${i}:scored`),
      );
      expect(new Set(items.map((i) => i.runId)).size).toBe(10);
      // Exactly one run per item came back into this store.
      expect(store.listRuns({ limit: 100 })).toHaveLength(10);
    } finally {
      store.close();
    }
    pool = [survivor, await startWorker()];
  }, 60_000);

  it('resumes after the coordinator is killed with SIGKILL, running no job twice', async () => {
    const db = join(dir, 'coordinator.db');
    const from = arrivals.length;
    const done = () => pool.flatMap((w) => w.lines).filter((l) => l.startsWith('done')).length;
    const before = done();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.OPENAI_API_KEY;
    const first = spawn(process.execPath, [BIN, ...evalArgs(db, ['--queue', redis.url])], {
      cwd: ROOT,
      env,
      stdio: 'ignore',
    });
    await until(() => done() - before >= 3);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // The jobs go on without a coordinator; the same command collects what they made.
    const again = await society(evalArgs(db, ['--queue', redis.url]));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout) as EvalSummary).toMatchObject({ status: 'finished' });
    const store = openRunStore(db);
    try {
      const items = store.evalItems((JSON.parse(again.stdout) as EvalSummary).evalId);
      expect(items.map((i) => i.status)).toEqual(Array(10).fill('scored'));
      expect(store.listRuns({ limit: 100 })).toHaveLength(10);
    } finally {
      store.close();
    }
    // Two calls an item, each made once.
    expect(arrivals.length - from).toBe(20);
  }, 60_000);

  it('spaces calls to a provider across all workers under --rate', async () => {
    const from = arrivals.length;
    const result = await society(
      evalArgs(join(dir, 'rated.db'), [
        '--limit',
        '4',
        '--queue',
        redis.url,
        '--rate',
        'openai=10/s',
      ]),
    );
    expect(result.code).toBe(0);
    const times = arrivals.slice(from);
    expect(times).toHaveLength(8);
    // 10 a second is one call every 100 ms, whichever worker makes it: eight calls span about
    // 700 ms (four items at once would otherwise all be done in about 200 ms). The bound leaves
    // room for a loaded machine delaying the first call more than the last.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(500);
  }, 60_000);

  it('runs simulated and replayed evals on workers, with no call to the server', async () => {
    // A cassette of every call the local eval made: the replayed eval is answered from it.
    const local = openRunStore(join(dir, 'local.db'));
    const entries = local.listRuns({ limit: 100 }).flatMap((r) => local.callRecord(r.id).entries);
    local.close();
    const cassette = join(dir, 'calls.json');
    writeFileSync(cassette, JSON.stringify({ format: 'society-cassette', version: 1, entries }));
    const before = arrivals.length;
    const [replayed, simulated, repeated] = await Promise.all([
      society(evalArgs(join(dir, 'replayed.db'), ['--queue', redis.url, '--replay', cassette])),
      society(evalArgs(join(dir, 'simulated.db'), ['--queue', redis.url, '--simulate'])),
      society(
        evalArgs(join(dir, 'repeated.db'), ['--queue', redis.url, '--simulate', '--repeats', '2']),
      ),
    ]);
    expect(replayed.code).toBe(0);
    expect(simulated.code).toBe(0);
    expect((JSON.parse(replayed.stdout) as EvalSummary).variants[0]!.score.mean).toBe(
      ARITH_RIGHT / 10,
    );
    const sim = JSON.parse(simulated.stdout) as EvalSummary;
    expect(sim).toMatchObject({ status: 'finished', simulated: true });
    expect(sim.variants[0]!.n).toBe(10);
    // Each repeat is a job of its own on the queue: 10 items × 2 repeats, each recorded once.
    expect(repeated.code, repeated.stderr).toBe(0);
    const twice = JSON.parse(repeated.stdout) as EvalSummary;
    expect(twice).toMatchObject({ status: 'finished', repeats: 2 });
    expect(twice.variants[0]!.n).toBe(20);
    const store = openRunStore(join(dir, 'repeated.db'));
    try {
      const items = store.evalItems(twice.evalId);
      expect(new Set(items.map((i) => `${i.item}.${i.repeat ?? 0}`)).size).toBe(20);
      expect(new Set(items.map((i) => i.runId)).size).toBe(20);
    } finally {
      store.close();
    }
    expect(arrivals.length).toBe(before);
  }, 60_000);
});

describe('a queue that cannot be reached', () => {
  it('ends society eval and society worker with one line and exit code 2', async () => {
    const { freePort } = await import('./support/redis.ts');
    const url = `redis://127.0.0.1:${await freePort()}`;
    const dir = mkdtempSync(join(tmpdir(), 'society-noqueue-'));
    try {
      const file = join(dir, 'arith.society.json');
      const data = join(dir, 'q.jsonl');
      writeFileSync(file, JSON.stringify(ARITH_DOCUMENT));
      writeFileSync(data, `${JSON.stringify(ARITH_ROWS[0])}\n`);
      const results = await Promise.all([
        society(arithEvalArgs(file, data, join(dir, 'x.db'), ['--simulate', '--queue', url])),
        society(['worker', '--queue', url]),
        society(['worker', '--queue', 'http://127.0.0.1:6379']),
      ]);
      for (const result of results) expect(result.code).toBe(2);
      expect(results[0]!.stderr).toBe(`society: cannot reach Redis at ${url}: ECONNREFUSED\n`);
      expect(results[1]!.stderr).toBe(`society: cannot reach Redis at ${url}: ECONNREFUSED\n`);
      expect(results[2]!.stderr).toMatch(
        /^society: --queue http:\/\/127.0.0.1:6379: give a redis:\/\/ .*\n$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Resolves once `condition` holds (checked every 20 ms); fails after 20 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 20_000) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
