/**
 * `society serve --queue`: a server in this process hands its runs to two queue workers, also
 * in this process (the workers `society worker` starts), over a real Redis (Debian's
 * redis-server at a free port), their model a local stub of the OpenAI protocol. A run's
 * events stream while it runs on a worker; it ends in the server's store with its events and
 * outputs, which the API and the OpenAI endpoint answer with; runs spread over both workers;
 * a running run is cancelled on its worker. Skipped, with a message, without redis-server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeFlags, serveOptions } from '../app/cli/commands/serve/serve.ts';
import { parseProviders } from '../app/cli/provider-flags.ts';
import { parseQueueUrl } from '../app/eval/queue/connection.ts';
import { type EvalWorker, startEvalWorker } from '../app/eval/queue/worker.ts';
import { type Serving, serve } from '../app/serve/index.ts';
import { openRunStore, type RunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { freePort, type LocalRedis, REDIS_SERVER, startRedis } from './support/redis.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

if (!REDIS_SERVER)
  console.warn(
    'serve-queue tests skipped: redis-server is not installed (apt-get install redis-server)',
  );

const SECRET = 'serve-queue-test-secret-0123456789';
const TOKEN = 'test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };

const dir = mkdtempSync(join(tmpdir(), 'society-serve-queue-'));
const file = join(dir, 'echo.society.json');
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

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  id: string;
  status: string;
  outputs?: Record<string, unknown>;
}

describe.skipIf(!REDIS_SERVER)('society serve --queue with two workers', () => {
  let redis: LocalRedis;
  let stub: StubOpenAI;
  const workers: { worker: EvalWorker; store: RunStore; lines: string[] }[] = [];
  let serving: Serving;
  let closeStore: () => void;
  let db: string;
  let url: string;
  /** Questions the stub holds its answer to until the promise settles (or the call is aborted). */
  const gates = new Map<string, Promise<void>>();

  beforeAll(async () => {
    process.env.SOCIETY_QUEUE_SECRET = SECRET;
    // A dead worker's job is taken over within about 3 s, and lost results are looked for as often.
    process.env.SOCIETY_QUEUE_LOCK_MS = '2000';
    redis = await startRedis();
    stub = await startStubOpenAI({
      latencyMs: 50,
      respond: async (body) => {
        const prompt = String(body.messages.at(-1)?.content ?? '');
        const question = prompt.replace(/^Answer: /, '');
        await gates.get(question);
        return { text: `echo: ${prompt}` };
      },
    });
    const address = parseQueueUrl(redis.url);
    for (let i = 0; i < 2; i++) {
      const store = openRunStore(join(dir, `worker-${i}.db`));
      const lines: string[] = [];
      const worker = await startEvalWorker({
        address,
        concurrency: 2,
        store,
        // The server names the profile `stub`; each worker reaches it through its own.
        providerOverrides: parseProviders([`stub=${stub.url}`]),
        secret: SECRET,
        log: (line) => lines.push(line),
      });
      workers.push({ worker, store, lines });
    }
    db = join(dir, 'server.db');
    const flags: ServeFlags = {
      port: '0',
      host: '127.0.0.1',
      token: TOKEN,
      auth: true,
      concurrency: '6',
      queueLimit: '8',
      maxBody: '65536',
      provider: [`stub=${stub.url}`],
      allowHost: [],
      db,
      queue: redis.url,
    };
    const { options, close } = await serveOptions([file], flags);
    serving = await serve(options);
    closeStore = close;
    url = serving.url;
  }, 30_000);

  afterAll(async () => {
    await serving?.close();
    closeStore?.();
    for (const { worker, store } of workers) {
      await worker.close(true).catch(() => {});
      store.close();
    }
    await stub?.close();
    await redis?.stop();
    delete process.env.SOCIETY_QUEUE_LOCK_MS;
  });

  const start = async (question: string): Promise<string> => {
    const res = await fetch(`${url}/societies/echo/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ inputs: { question } }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as Run).id;
  };
  const waitFor = async (id: string): Promise<Run> =>
    (await (await fetch(`${url}/runs/${id}?wait=1`, { headers: auth })).json()) as Run;

  it('runs on a worker, streams its events while it runs, and keeps it in the server`s store', async () => {
    // The model's answer is held: the events before it can only have come live from the worker.
    let release!: () => void;
    gates.set(
      'Two plus two?',
      new Promise((resolve) => {
        release = resolve;
      }),
    );
    const id = await start('Two plus two?');
    const res = await fetch(`${url}/runs/${id}/events`, { headers: auth });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: model.request')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toContain('event: run.started');
    expect(text).not.toContain('event: run.finished');
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const frames = text.trim().split('\n\n');
    const types = frames.map((f) => /^event: (.+)$/m.exec(f)?.[1]);
    expect(types.at(-1)).toBe('run.finished');
    expect(JSON.parse(/^data: (.+)$/m.exec(frames.at(-1)!)![1]!)).toMatchObject({
      status: 'succeeded',
      outputs: { answer: 'echo: Answer: Two plus two?' },
    });

    expect(await waitFor(id)).toMatchObject({
      id,
      status: 'succeeded',
      outputs: { answer: 'echo: Answer: Two plus two?' },
    });
    // The run is the server's, imported whole: its record, its events (those streamed), its calls.
    const store = openRunStore(db);
    try {
      expect(store.getRun(id)).toMatchObject({
        status: 'succeeded',
        graphName: 'echo society',
        outputs: { answer: 'echo: Answer: Two plus two?' },
      });
      expect(store.events(id).map((e) => e.type)).toEqual(types);
      expect(store.callRecord(id).entries).toHaveLength(1);
    } finally {
      store.close();
    }
    expect(workers.flatMap((w) => w.lines).some((l) => l.startsWith(`done  run ${id}`))).toBe(true);
  });

  it('answers the openai SDK from a worker`s run', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: TOKEN });
    const reply = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'Is the sky blue?' }],
    });
    expect(reply.choices[0]!.message.content).toBe('echo: Answer: Is the sky blue?');
    expect(reply.usage!.total_tokens).toBeGreaterThan(0);
  });

  it('spreads concurrent runs over both workers, every one answered', async () => {
    // Each answer waits until all six have reached the model: no worker can take them all.
    let release!: () => void;
    const all = new Promise<void>((resolve) => {
      release = resolve;
    });
    const questions = Array.from({ length: 6 }, (_, i) => `Question ${i}?`);
    for (const q of questions) gates.set(q, all);
    const before = workers.map((w) => w.lines.length);
    const ids = await Promise.all(questions.map(start));
    const waited = Promise.all(ids.map(waitFor));
    await until(() => stub.inFlight() >= 4);
    release();
    const runs = await waited;
    expect(runs.map((r) => r.status)).toEqual(questions.map(() => 'succeeded'));
    expect(runs.map((r) => r.outputs?.answer)).toEqual(questions.map((q) => `echo: Answer: ${q}`));
    const ranBy = workers.map(
      (w, i) => w.lines.slice(before[i]).filter((l) => l.startsWith('done  run ')).length,
    );
    expect(ranBy[0]! + ranBy[1]!).toBe(6);
    expect(ranBy[0]).toBeGreaterThan(0);
    expect(ranBy[1]).toBeGreaterThan(0);
  });

  it('cancels a run running on a worker: its call is aborted and it ends cancelled', async () => {
    gates.set('Forever?', new Promise(() => {}));
    const aborted = stub.aborted();
    const id = await start('Forever?');
    await until(() => workers.some((w) => w.lines.some((l) => l.startsWith(`run   run ${id}`))));
    await until(() => stub.inFlight() > 0);
    const res = await fetch(`${url}/runs/${id}`, { method: 'DELETE', headers: auth });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Run).status).toBe('cancelled');
    await until(() => stub.aborted() > aborted);
    const store = openRunStore(db);
    try {
      expect(store.getRun(id)?.status).toBe('cancelled');
    } finally {
      store.close();
    }
  });

  it('queues no run whose inputs hold a key: it fails saying so', async () => {
    // The queue's secret is one of the keys this process knows.
    const id = await start(`my key is ${SECRET}`);
    const run = (await waitFor(id)) as Run & { error?: string };
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/inputs hold a key; it would be written to Redis/);
    expect(JSON.stringify(run)).not.toContain(SECRET);
  });

  // Last: it leaves one worker.
  it('finishes a run on the other worker when its worker stops mid-run', async () => {
    let release!: () => void;
    gates.set(
      'Who takes over?',
      new Promise((resolve) => {
        release = resolve;
      }),
    );
    const id = await start('Who takes over?');
    const ran = (w: (typeof workers)[number]) =>
      w.lines.some((l) => l.startsWith(`run   run ${id}`));
    await until(() => workers.some(ran));
    const [gone, other] = ran(workers[0]!) ? workers : [workers[1]!, workers[0]!];
    // Stopped at once, its job still held: it renews the job's lock no more, as a dead one.
    await gone!.worker.close(true);
    await until(() => other!.lines.some((l) => l.includes(`run ${id} of echo (taken over`)));
    release();
    expect(await waitFor(id)).toMatchObject({
      status: 'succeeded',
      outputs: { answer: 'echo: Answer: Who takes over?' },
    });
  }, 20_000);
});

describe('society serve --queue at a Redis that is not there', () => {
  it('ends with one line and exit code 2', async () => {
    const queue = `redis://127.0.0.1:${await freePort()}`;
    process.env.SOCIETY_QUEUE_SECRET = SECRET;
    const result = await societyHere([
      'serve',
      file,
      '--queue',
      queue,
      '--db',
      join(dir, 'nowhere.db'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`society: cannot reach Redis at ${queue}: ECONNREFUSED\n`);
  }, 30_000);
});

/** Resolves once `condition` holds (checked every 20 ms); fails after 20 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 20_000) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
