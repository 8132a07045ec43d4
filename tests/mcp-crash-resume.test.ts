/**
 * Kill -9 during a tool call, then resume: `society run` is SIGKILLed while its agent's third
 * tool call is held by an MCP server over Streamable HTTP, and `society resume RUN --mcp …`
 * finishes it. The server receives the two calls that had returned exactly once in all, the
 * third (which never returned) again, the model is paid for no answer twice, and the run ends
 * with the answer of an unbroken run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { type CountingMcpServer, startCountingMcp } from './support/mcp-counting.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const STEPS = 3;

/** q → worker (offered the server's `step` tool) → answer */
const doc = {
  version: 1,
  name: 'tool crash test',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    {
      id: 'worker',
      type: 'agent',
      position: { x: 0, y: 0 },
      data: {
        model: 'm',
        prompt: 'Take the steps for {{ q }}',
        tools: [{ mcp: 'tools', allow: ['step'] }],
      },
    },
    { id: 'answer', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'worker', targetHandle: 'q' },
    { id: 'e2', source: 'worker', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
  ],
};

/** While set, the server holds every call to step 3 until the client goes away. */
let holdLast = true;
let server: CountingMcpServer;
let model: StubOpenAI;
let dir: string;
let file: string;

/** The tool results the model has been sent so far. */
const resultsIn = (body: StubRequestBody): string[] =>
  body.messages
    .filter((m: { role: string }) => m.role === 'tool')
    .map((m: { content: string }) => m.content);

beforeAll(async () => {
  server = await startCountingMcp([
    {
      name: 'step',
      input: { n: z.number().int() },
      answer: async ({ n }, { signal }) => {
        if (n === STEPS && holdLast) {
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
        }
        return `step ${n} done`;
      },
    },
  ]);
  // One call per round, each asking for the next step, then an answer quoting every result.
  model = await startStubOpenAI({
    respond: (body) => {
      const results = resultsIn(body);
      return results.length < STEPS
        ? {
            text: '',
            toolCalls: [
              {
                id: `call_${results.length + 1}`,
                name: 'step',
                arguments: { n: results.length + 1 },
              },
            ],
          }
        : { text: `finished: ${results.join(' | ')}` };
    },
  });
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-tool-crash-'));
  file = join(dir, 'society.json');
  writeFileSync(file, JSON.stringify(doc));
});
afterAll(async () => {
  await server?.close();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

const args = (db: string) => [
  '--db',
  db,
  '--provider',
  `openai=${model.url}`,
  '--mcp',
  `tools=${server.url}`,
  '--json',
  '-q',
];

/** How many calls the server received for each step, from `from` on. */
const callsPerStep = (from = 0) => {
  const counts: Record<number, number> = {};
  for (const call of server.calls.slice(from)) {
    const n = Number(call.args.n);
    counts[n] = (counts[n] ?? 0) + 1;
  }
  return counts;
};

/** `society run` in a child process, SIGKILLed once the server holds the call to the last step. */
function runAndKillDuringLastCall(db: string): Promise<{ signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const from = server.calls.length;
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.OPENAI_API_KEY;
    const child = spawn(process.execPath, [BIN, 'run', file, '--input', 'q=tea', ...args(db)], {
      env,
      stdio: 'ignore',
    });
    const timer = setInterval(() => {
      if (server.calls.slice(from).some((c) => c.args.n === STEPS)) child.kill('SIGKILL');
    }, 5);
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearInterval(timer);
      resolve({ signal });
    });
  });
}

it('a run killed during a tool call resumes without making any returned call again', {
  timeout: 30_000,
}, async () => {
  // The unbroken run the resumed one must match.
  holdLast = false;
  const unbroken = await societyHere(['run', file, '--input', 'q=tea', ...args(join(dir, 'a.db'))]);
  expect(unbroken.code, unbroken.stderr).toBe(0);
  const expected = JSON.parse(unbroken.stdout);
  expect(expected.outputs.answer).toBe('finished: step 1 done | step 2 done | step 3 done');
  expect(callsPerStep()).toEqual({ 1: 1, 2: 1, 3: 1 });

  holdLast = true;
  const db = join(dir, 'killed.db');
  const fromCall = server.calls.length;
  const fromModel = model.count();
  const { signal } = await runAndKillDuringLastCall(db);
  expect(signal).toBe('SIGKILL');
  // Killed with step 3 in flight: the model had asked for it, and been asked nothing since.
  expect(callsPerStep(fromCall)).toEqual({ 1: 1, 2: 1, 3: 1 });
  expect(model.count() - fromModel).toBe(STEPS);
  const store = openRunStore(db);
  store.markInterrupted();
  const [killed] = store.listRuns();
  store.close();
  expect(killed?.status).toBe('interrupted');

  holdLast = false;
  const resumed = await societyHere(['resume', killed!.id, ...args(db)]);
  expect(resumed.code, resumed.stderr).toBe(0);
  const out = JSON.parse(resumed.stdout);
  expect(out.runId).toBe(killed!.id);
  expect(out.outputs).toEqual(expected.outputs);
  // Steps 1 and 2 had returned: received once in all. Step 3 never returned: asked again.
  expect(callsPerStep(fromCall)).toEqual({ 1: 1, 2: 1, 3: 2 });
  // The model's three answers came from the record; only the last, new one was asked for.
  expect(model.count() - fromModel).toBe(STEPS + 1);

  // The run's log tells one story: each step's result once, the first two from before the kill.
  const after = openRunStore(db);
  try {
    const results = after.events(killed!.id).filter((e) => e.type === 'tool.result');
    expect(results.map((e) => (e as { result: string }).result)).toEqual([
      'step 1 done',
      'step 2 done',
      'step 3 done',
    ]);
  } finally {
    after.close();
  }
});
