/**
 * Interviewing a member: a question asked of one agent in its own context at a point of a run
 * (paused in the debugger, or finished) is answered through the provider its calls used, is
 * recorded as a side call, and changes nothing of the run: its outputs and the calls after the
 * question are byte-identical to a run where nobody asked, and a replay ignores it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachStepper } from '../app/cli/stepper.ts';
import { interview } from '../app/runs/interview.ts';
import { documentTextOf } from '../app/runs/record.ts';
import { openRunStore } from '../app/store/index.ts';
import { society, societyHere } from './support/cli.ts';
import { DEBATE } from './support/debate.ts';
import { compile, start } from './support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const QUESTION = 'Why did you say that?';
/** Request bodies as the wire saw them, for byte comparison. */
const wire = (stub: StubOpenAI) => stub.requests.map((body) => JSON.stringify(body));

let stub: StubOpenAI;
beforeAll(async () => {
  stub = await startStubOpenAI();
});
afterAll(() => stub.close());

/** Runs the debate against the stub; `ask` (when given) is typed at a hold before round 3. */
async function debate(ask?: string) {
  const from = stub.count();
  const store = openRunStore(':memory:');
  const compiled = await compile(DEBATE);
  const run = await start(DEBATE, {
    inputs: { question: 'Should the town build a bridge?' },
    providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } },
    breakpoints: [{ round: 3 }],
  });
  store.createRun({
    id: run.id,
    document: DEBATE,
    documentText: documentTextOf(compiled),
    compilerVersion: compiled.machines.compilerVersion,
    mode: 'live',
    inputs: {},
  });
  const out = new PassThrough();
  let said = '';
  out.on('data', (d) => {
    said += d;
  });
  let askedAt = -1;
  attachStepper(run, out, Readable.from([`${ask ? `${ask}\n` : ''}c\n`]), (member, at, q) => {
    askedAt = stub.count() - from;
    return interview(
      {
        runId: run.id,
        events: run.events,
        doc: compiled.doc,
        store,
        blob: (h) => run.blobs.get(h),
      },
      member,
      at,
      q,
      { providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } } },
    );
  });
  const result = await run.result;
  return { result, said, askedAt, bodies: wire(stub).slice(from), store, run };
}

describe('asking a member in the terminal debugger', () => {
  it('answers in its context, records a side call, and leaves the run byte-identical', async () => {
    const plain = await debate();
    const asked = await debate(`ask member#1@r2 "${QUESTION}"`);
    expect(plain.result.status).toBe('succeeded');
    expect(asked.result.status).toBe('succeeded');

    // One more request on the wire: the question, sent while the run was held before round 3.
    expect(asked.bodies).toHaveLength(plain.bodies.length + 1);
    expect(asked.askedAt).toBeGreaterThan(0);
    const sent = JSON.parse(asked.bodies[asked.askedAt]!);
    // Its context: bob's system prompt, what bob was sent in round 2 and bob's answer, then the question.
    const round2 = asked.run.events.find(
      (e) => e.type === 'model.request' && e.instance === 'member#1@r2',
    );
    expect(round2?.type).toBe('model.request');
    const answer2 = asked.run.events.find(
      (e) => e.type === 'model.response' && e.instance === 'member#1@r2',
    );
    const messages = sent.messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'system', content: 'You are bob, a careful debater.' });
    expect(messages.slice(0, -2).map((m) => m.content)).toEqual(
      round2?.type === 'model.request' ? round2.messages.map((m) => m.content) : [],
    );
    expect(messages.at(-2)).toEqual({
      role: 'assistant',
      content: answer2?.type === 'model.response' ? answer2.text : '',
    });
    expect(messages.at(-1)).toEqual({ role: 'user', content: QUESTION });
    expect(sent.model).toBe('gpt-4o-mini');

    // Shown as a side call, and recorded as one (not in the run's events or usage).
    expect(asked.said).toContain('side call #1 to member#1@r2');
    expect(asked.said).toContain(`A: echo: ${QUESTION}`);
    const [record] = asked.store.interviews.ofRun(asked.run.id);
    expect(record).toMatchObject({
      instance: 'member#1@r2',
      callId: 'member#1@r2:1',
      question: QUESTION,
      answer: `echo: ${QUESTION}`,
      simulated: false,
    });
    expect(JSON.stringify(asked.run.events)).not.toContain(QUESTION);
    expect(asked.result.usage).toEqual(plain.result.usage);

    // Outputs and every other request, before and after the question, byte for byte.
    expect(JSON.stringify(asked.result.outputs)).toBe(JSON.stringify(plain.result.outputs));
    const others = asked.bodies.filter((_, i) => i !== asked.askedAt);
    expect(others).toEqual(plain.bodies);
    expect(asked.bodies.slice(asked.askedAt + 1)).toEqual(plain.bodies.slice(asked.askedAt));
  }, 20_000);

  it('says plainly when the member has made no call there', async () => {
    const { said } = await debate('ask member#1@r3 why?');
    expect(said).toContain('member#1@r3 has made no model call (members with calls:');
  }, 20_000);
});

describe('society interview on a finished run', () => {
  it('asks, lists, shows, and a replay of the run sends nothing and ignores the side call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'society-interview-'));
    const db = join(dir, 'runs.db');
    const file = join(dir, 'debate.society.json');
    writeFileSync(file, JSON.stringify(DEBATE));
    const env = { OPENAI_API_KEY: 'sk-test-interview-key-0000' };
    // Asked at the debugger of `society run --step`, held before round 3.
    const ran = await society(
      [
        'run',
        file,
        '--input',
        'question=Bridge?',
        '--provider',
        `openai=${stub.url}`,
        '--step',
        '--json',
        '-q',
        '--db',
        db,
      ],
      env,
      `b round:3\nc\nask member#1@r2 "${QUESTION}"\nc\n`,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('side call #1 to member#1@r2');
    expect(ran.stderr).toContain(`A: echo: ${QUESTION}`);
    const { runId, outputs } = JSON.parse(ran.stdout);

    // Asked again once it is over, of another member's latest call.
    const before = stub.count();
    process.env.OPENAI_API_KEY = env.OPENAI_API_KEY;
    try {
      const asked = await societyHere([
        'interview',
        runId,
        'member#0',
        'What would change your mind?',
        '--provider',
        `openai=${stub.url}`,
        '--db',
        db,
      ]);
      expect(asked.code, asked.stderr).toBe(0);
      expect(asked.stdout).toContain('side call #2 to member#0@r3');
      expect(asked.stdout).toContain('A: echo: What would change your mind?');
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
    expect(stub.count()).toBe(before + 1);
    const latest = stub.requests.at(-1);
    expect(latest.messages[0]).toEqual({
      role: 'system',
      content: 'You are ann, a careful debater.',
    });
    expect(latest.messages.at(-1)).toEqual({
      role: 'user',
      content: 'What would change your mind?',
    });

    const listed = await societyHere(['interview', runId, '--list', '--db', db]);
    expect(listed.stdout).toContain(`Q: ${QUESTION}`);
    expect(listed.stdout).toContain('Q: What would change your mind?');
    const shown = await societyHere(['show', runId, '--db', db]);
    expect(shown.stdout).toContain(`2 side calls (interviews): society interview ${runId} --list`);

    const unknown = await societyHere(['interview', runId, 'nobody@r1', 'why?', '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nobody@r1 has made no model call');

    const exported = join(dir, 'run.json');
    expect((await societyHere(['export', runId, '-o', exported, '--db', db])).code).toBe(0);
    const sent = stub.count();
    const replay = await societyHere(['replay', exported, '--json', '-q', '--db', db]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(stub.count()).toBe(sent);
    expect(JSON.parse(replay.stdout).outputs).toEqual(outputs);
    expect(JSON.stringify(JSON.parse(replay.stdout))).not.toContain('What would change your mind?');
    const replayed = JSON.parse(
      (await societyHere(['show', JSON.parse(replay.stdout).runId, '--json', '--db', db])).stdout,
    );
    expect(JSON.stringify(replayed.events)).not.toContain(QUESTION);

    const simulated = await societyHere([
      'interview',
      runId,
      'member#2@r1',
      'Sure?',
      '--simulate',
      '--db',
      db,
    ]);
    expect(simulated.code, simulated.stderr).toBe(0);
    expect(simulated.stdout).toMatch(/A \(simulated\): /);
    expect(stub.count()).toBe(sent);
  }, 30_000);
});
