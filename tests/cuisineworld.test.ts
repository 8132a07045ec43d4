/**
 * CuisineWorld from the command line: the dispatcher against a stub language model speaking the
 * OpenAI protocol over HTTP, the greedy baseline, a person in a seat, the sweep, and the
 * templates with --simulate.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepsOf } from '../app/environments/step-report.ts';
import { societyInProcess } from './support/cli.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-cuisineworld-'));
const db = join(dir, 'runs.db');

/** What the stub model answers at each step, in order; after the list, it idles. */
let answers: string[] = [];
/** The stub's request count when the current answers were set. */
let offset = 0;
const script = (texts: string[]) => {
  answers = texts;
  offset = llm.requests.length;
};
let llm: StubOpenAI;

beforeAll(async () => {
  llm = await startStubOpenAI({
    respond: (_body, ctx) => ({
      text: answers[ctx.index - offset] ?? 'noop_agent0\nnoop_agent1',
      usage: { prompt_tokens: 900, completion_tokens: 20 },
    }),
  });
});
afterAll(() => llm.close());

/** A short level-0 episode with a model dispatcher. */
function episode(dispatcher: Record<string, unknown> = {}, steps = 6) {
  const doc = {
    version: 1,
    name: 'short kitchen',
    models: {
      dispatcher: { provider: 'lab', model: 'kitchen-model', temperature: 0.1, maxTokens: 100 },
    },
    nodes: [
      {
        id: 'kitchen',
        type: 'environment',
        position: { x: 0, y: 0 },
        data: { level: 'level_0', agents: 2, seed: 1, maxSteps: steps },
      },
      {
        id: 'dispatcher',
        type: 'dispatcher',
        position: { x: 300, y: 0 },
        data: { model: 'dispatcher', demos: 0, ...dispatcher },
      },
      { id: 'metrics', type: 'output', position: { x: 600, y: 0 }, data: { name: 'metrics' } },
    ],
    edges: [
      {
        id: 'a',
        source: 'kitchen',
        sourceHandle: 'world',
        target: 'dispatcher',
        targetHandle: 'world',
      },
      {
        id: 'b',
        source: 'dispatcher',
        sourceHandle: 'metrics',
        target: 'metrics',
        targetHandle: 'value',
      },
    ],
  };
  const file = join(dir, `episode-${Math.random().toString(36).slice(2)}.society.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** `society run FILE` against the stub model, its events written to `events` when given. */
function play(file: string, options: { events?: string; json?: boolean; extra?: string[] } = {}) {
  return societyInProcess([
    'run',
    file,
    '--provider',
    `lab=${llm.url}`,
    ...(options.events ? ['--events', options.events] : []),
    ...(options.extra ?? []),
    '--db',
    db,
    ...(options.json ? ['--json'] : []),
    '-q',
  ]);
}

function readEvents(file: string) {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('the dispatcher against a model that makes mistakes', () => {
  it('refuses chatter-wrapped mistakes stage by stage, with precise reasons, and plays on', async () => {
    script([
      // Step 0: chatter around two good commands.
      'Let me think. First both go to storage.\n***\ngoto_agent0_storage0\ngoto_agent1_storage0\n***',
      // Step 1: an unknown verb for agent0, a good one for agent1.
      'fly_agent0_blender0 get_agent1_flour_storage0',
      // Step 2: two commands for agent0: the whole step is refused.
      'get_agent0_salmon_storage0 goto_agent0_blender0 goto_agent1_blender0',
      // Step 3: an impossible action (agent0 is at storage, not at the blender).
      'put_agent0_blender0 goto_agent1_blender0',
    ]);
    const before = llm.requests.length;
    const events = join(dir, 'mistakes.ndjson');
    const result = await play(episode(), { events, json: true });
    expect(result.code, result.stderr).toBe(0);
    const metrics = JSON.parse(result.stdout).outputs.metrics;
    expect(metrics.steps).toBe(6);
    expect(llm.requests.length - before).toBe(6);

    const steps = stepsOf(readEvents(events));
    expect(steps.map((s) => s.step)).toEqual([0, 1, 2, 3, 4, 5]);
    const reasons = (n: number) =>
      steps[n]!.rejections.map((r: { stage: string; reason: string }) => `${r.stage}:${r.reason}`);
    expect(reasons(0)).toEqual([]);
    expect(steps[0]!.commands.map((c: { command: string }) => c.command)).toEqual([
      'goto_agent0_storage0',
      'goto_agent1_storage0',
    ]);
    expect(reasons(1)).toEqual(['vocabulary:unknown-verb']);
    expect(steps[1]!.rejections[0]!.message).toMatch(/fly is not an action/);
    expect(reasons(2)[0]).toBe('assignment:duplicate-agent');
    expect(reasons(3)).toEqual(['precondition:not-at-location']);
    // The feedback of each step reaches the next prompt.
    const prompt = (n: number) => JSON.stringify(llm.requests[before + n].messages.at(-1));
    expect(prompt(2)).toContain('fly is not an action');
    expect(prompt(4)).toContain('put_agent0_blender0');
    expect(metrics.invalid).toMatchObject({ 'unknown-verb': 1, 'not-at-location': 1 });
  });

  it('refuses an answer with no commands, and one that leaves an agent out, and says so', async () => {
    script(['I am sorry, I am not sure what to do.', 'goto_agent0_storage0']);
    const events = join(dir, 'missing.ndjson');
    const result = await play(episode({}, 3), { events, json: true });
    expect(result.code, result.stderr).toBe(0);
    const steps = stepsOf(readEvents(events));
    expect(steps[0]!.rejections.map((r) => r.reason)).toEqual(['no-commands']);
    expect(steps[1]!.rejections.map((r) => `${r.agent}:${r.reason}`)).toEqual([
      'agent1:missing-command',
    ]);
    expect(JSON.stringify(llm.requests.at(-1)!.messages.at(-1))).toContain('agent1 got no command');
    const metrics = JSON.parse(result.stdout).outputs.metrics;
    expect(metrics.invalid).toMatchObject({ 'no-commands': 1, 'missing-command': 1 });
  });

  it('keeps no history with a window of 0', async () => {
    script([]);
    const before = llm.requests.length;
    const result = await play(episode({ history: 0 }, 3));
    expect(result.code, result.stderr).toBe(0);
    const last = llm.requests[before + 2]!.messages as Array<{ role: string }>;
    const first = llm.requests[before]!.messages as Array<{ role: string }>;
    expect(last.length).toBe(first.length);
  });

  it('asks again before committing under retry, and commits what the second answer gives', async () => {
    script([
      'jump_agent0_storage0 goto_agent1_storage0',
      'goto_agent0_storage0 goto_agent1_storage0',
    ]);
    const before = llm.requests.length;
    const events = join(dir, 'retry.ndjson');
    const result = await play(episode({ behaviour: 'retry', retries: 2 }, 1), { events });
    expect(result.code, result.stderr).toBe(0);
    expect(llm.requests.length - before).toBe(2);
    const step = stepsOf(readEvents(events))[0]!;
    expect(step.attempts).toBe(2);
    expect(step.rejections).toEqual([]);
    // The refused first attempt still counts.
    expect(step.retried?.map((r) => r.reason)).toEqual(['unknown-verb']);
    expect(JSON.stringify(llm.requests[before + 1].messages.at(-1))).toContain(
      'jump is not an action',
    );
  });
});

describe('the greedy baseline and the templates', () => {
  it('plays a 60-step episode with no model and prints completed, failed and open orders', async () => {
    const result = await societyInProcess([
      'run',
      'templates/cuisineworld-greedy.society.json',
      '--db',
      db,
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /summary: level_3, 2 agents, alpha 1: \d+ completed, \d+ failed, \d+ open in 60 steps; 0 commands refused/,
    );
    const completed = Number(/: (\d+) completed/.exec(result.stdout)?.[1]);
    expect(completed).toBeGreaterThan(0);
  });

  it('plays the dispatcher template with --simulate, labelled simulated', async () => {
    const result = await societyInProcess([
      'run',
      'templates/cuisineworld-dispatcher-3.society.json',
      '--simulate',
      '--db',
      db,
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /summary: \[simulated\] level_3, 3 agents, alpha 1: \d+ completed, \d+ failed, \d+ open in 60 steps/,
    );
    expect(result.stderr).toMatch(/60 calls/);
  });

  it('lets a person play a seat: the command line asks, the model is told to leave it alone', async () => {
    script(['goto_agent0_storage0 goto_agent1_storage0']);
    const before = llm.requests.length;
    const events = join(dir, 'seat.ndjson');
    const result = await play(episode({ seats: ['agent1'] }, 2), {
      events,
      extra: [
        '--input',
        'agent1@t0=goto_agent1_storage0',
        '--input',
        'agent1@t1=I will fetch flour: get_agent1_flour_storage0',
      ],
    });
    expect(result.code, result.stderr).toBe(0);
    const steps = stepsOf(readEvents(events));
    expect(steps[0]!.commands).toEqual([
      { command: 'goto_agent0_storage0', by: 'model' },
      { command: 'goto_agent1_storage0', by: 'person' },
    ]);
    // The model's command for the person's agent was refused, and it was told why.
    expect(steps[0]!.rejections.map((r) => r.reason)).toEqual(['seat-taken']);
    expect(steps[1]!.commands).toContainEqual({
      command: 'get_agent1_flour_storage0',
      by: 'person',
    });
    expect(JSON.stringify(llm.requests[before].messages)).toContain('agent1 is played by a person');
  });

  it("records a person's turns with --record, and a replay plays them without asking", async () => {
    script(['goto_agent0_storage0 goto_agent1_storage0', 'get_agent0_salmon_storage0']);
    const cassette = join(dir, 'seat.cassette.json');
    const recorded = join(dir, 'seat-recorded.ndjson');
    const file = episode({ seats: ['agent1'] }, 2);
    const seatTurns = [
      '--input',
      'agent1@t0=goto_agent1_storage0',
      '--input',
      'agent1@t1=get_agent1_flour_storage0',
    ];
    const live = await play(file, {
      events: recorded,
      extra: [...seatTurns, '--record', cassette],
    });
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(readFileSync(cassette, 'utf8')).answers).toEqual({
      'agent1@t0': 'goto_agent1_storage0',
      'agent1@t1': 'get_agent1_flour_storage0',
    });

    const replayed = join(dir, 'seat-replayed.ndjson');
    const replay = await play(file, { events: replayed, extra: ['--replay', cassette] });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('using 2 answers of a person recorded in the cassette');
    const steps = (path: string) => stepsOf(readEvents(path)).map((e) => e.commands);
    expect(steps(replayed)).toEqual(steps(recorded));
  });

  it("does not let a person's slip cost the model its step, and tells the person", async () => {
    script(['goto_agent0_storage0', 'get_agent0_salmon_storage0']);
    const events = join(dir, 'slip.ndjson');
    const result = await play(episode({ seats: ['agent1'] }, 2), {
      events,
      extra: [
        '--input',
        'agent1@t0=goto_agent1_oven0',
        '--input',
        'agent1@t1=go to the storage please',
      ],
    });
    expect(result.code, result.stderr).toBe(0);
    const log = readEvents(events);
    const steps = stepsOf(log);
    // The model's command ran although the person named a place the kitchen lacks.
    expect(steps[0]!.commands).toEqual([{ command: 'goto_agent0_storage0', by: 'model' }]);
    expect(steps[0]!.rejections.map((r) => `${r.agent}:${r.reason}`)).toEqual([
      'agent1:unknown-location',
    ]);
    expect(steps[1]!.rejections.map((r) => r.reason)).toEqual(['unreadable']);
    const asked = log.filter((e) => e.type === 'human.request');
    expect(asked[1].prompt).toMatch(/^Last step: goto_agent1_oven0: /);
  });
});

describe('society cuisineworld', () => {
  it('lists the levels and flags a dish the kitchen cannot make', async () => {
    const result = await societyInProcess(['cuisineworld', 'levels']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/level_12: L12, advanced; .*\n {2}! frenchFries needs fryer/);
    expect(result.stdout).toMatch(
      /level_0: L0, very-simple; kitchen: 1× blender; dishes: salmonMeatcake\n/,
    );
  });

  it('sweeps a grid with the greedy dispatcher and prints the CoS table', async () => {
    const result = await societyInProcess([
      'cuisineworld',
      'sweep',
      '--levels',
      '0,3',
      '--agents',
      '2',
      '--episodes',
      '1',
      '--steps',
      '30',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      '2 agents · greedy dispatcher (no model) · 1 episode of 30 steps per cell',
    );
    expect(lines[1]).toMatch(/^\s+level_0\s+level_3\s+average$/);
    expect(lines.slice(2, 7).map((l) => l.slice(0, 14).trim())).toEqual([
      'τ1 (α 1)',
      'τ2 (α 1.5)',
      'τ3 (α 2)',
      'τ4 (α 2.5)',
      'τ5 (α 3)',
    ]);
    for (const row of lines.slice(2, 7)) expect(row).toMatch(/\d+\/\d+\s+\d+\/\d+\s+\d\.\d{3}$/);
    expect(lines[7]).toMatch(/^CoS \(\+open\)\s+\d\.\d{3}\s+\d\.\d{3}\s+\d\.\d{3}$/);
    expect(lines[8]).toMatch(/^CoS\s+\d\.\d{3}\s+\d\.\d{3}\s+\d\.\d{3}$/);
    expect(result.stderr).toMatch(/10\/10/);
  });

  it('says what is wrong with a bad grid, in one line', async () => {
    const bad = async (args: string[], message: RegExp) => {
      const result = await societyInProcess(['cuisineworld', 'sweep', ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    };
    await bad(['--levels', '99'], /--levels: no level "99"/);
    await bad(['--agents', '9'], /--agents: 9 is too many \(at most 8\)/);
    await bad(['--episodes', '2,5'], /--episodes: give one number, not a list/);
  });
});
