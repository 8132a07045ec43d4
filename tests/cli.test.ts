import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, society, societyInProcess, TEST_DB } from './support/cli.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const VQA = 'templates/nlsom-vqa.society.json';
const CASSETTE = 'templates/nlsom-vqa.cassette.json';
const IMAGE = 'templates/nlsom-vqa.example.png';
const QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';
const vqaInputs = ['--input', `question=${QUESTION}`, '--input', `image=@${IMAGE}`];
// The commands run in this process (societyInProcess): a process start-up each was most of this
// file's time. The two debugger tests that type on stdin start the command.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'society-cli-'));
});

function write(name: string, doc: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

const node = (
  id: string,
  type: string,
  data: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  id,
  type,
  position: { x: 0, y: 0 },
  data,
  ...extra,
});
const edge = (
  id: string,
  source: string,
  sourceHandle: string,
  target: string,
  targetHandle: string,
  data?: unknown,
) => ({
  id,
  source,
  sourceHandle,
  target,
  targetHandle,
  ...(data ? { data } : {}),
});
const models = { m: { provider: 'openai', model: 'gpt-4o-mini' } };
const doc = (nodes: unknown[], edges: unknown[], extra: Record<string, unknown> = {}) => ({
  version: 1,
  name: 'test',
  models,
  nodes,
  edges,
  ...extra,
});

function expectNoStackTrace(text: string) {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

describe('society validate', () => {
  it('accepts every shipped template', async () => {
    const templates = readdirSync(join(ROOT, 'templates')).filter((f) =>
      f.endsWith('.society.json'),
    );
    expect(templates.length).toBeGreaterThan(0);
    const result = await societyInProcess(['validate', ...templates.map((t) => `templates/${t}`)]);
    expect(result.code).toBe(0);
    for (const t of templates) expect(result.stdout).toContain(`templates/${t}: valid`);
  });

  const broken: Array<[string, unknown, RegExp]> = [
    ['not JSON', '{ "version": 1, nodes: [', /\(document\): not valid JSON/],
    [
      'an unknown node type',
      doc([node('x', 'telepathy', {})], []),
      /node "x" \(nodes\[0\]\.type\): unknown node type "telepathy"/,
    ],
    [
      'an edge to a node that does not exist',
      doc([node('q', 'input', { name: 'q' })], [edge('e1', 'q', 'value', 'ghost', 'value')]),
      /edges\[0\]\.target: edge "e1" ends at node "ghost", which does not exist/,
    ],
    [
      'a cycle outside a loop',
      doc(
        [
          node('a', 'transform', { template: '{{ x }}' }),
          node('b', 'transform', { template: '{{ y }}' }),
        ],
        [edge('e1', 'a', 'value', 'b', 'y'), edge('e2', 'b', 'value', 'a', 'x')],
      ),
      /cycle a → b → a: cycles are allowed only inside a mindstorm/,
    ],
    [
      'a modality mismatch',
      doc(
        [
          node('img', 'input', { name: 'img', modality: 'image' }),
          node('a', 'agent', { prompt: 'Describe {{ topic }}', model: 'm' }),
        ],
        [edge('e1', 'img', 'value', 'a', 'topic')],
      ),
      /modality mismatch: img\.value gives image but a\.topic takes text/,
    ],
    [
      'a missing required input',
      doc([node('a', 'agent', { prompt: 'Answer {{ question }}', model: 'm' })], []),
      /node "a" \(nodes\[0\]\): required input "question" \(text\) is not connected/,
    ],
    [
      'a template that includes a file',
      doc(
        [
          node('q', 'input', { name: 'q' }),
          node('agent1', 'agent', { prompt: "{{ q }} {% include '.env' %}", model: 'm' }),
        ],
        [edge('e1', 'q', 'value', 'agent1', 'q')],
      ),
      // One line: the refusal is the only problem (its slot still takes the edge).
      /^[^\n]*: node "agent1" \(nodes\[1\]\.data\.prompt\): templates cannot include other files \(\{% include %\}\)\n$/,
    ],
  ];

  for (const [what, body, message] of broken) {
    it(`exits 2 and names the problem for ${what}`, async () => {
      const file = write(`${what.replaceAll(' ', '-')}.json`, body);
      const result = await societyInProcess(['validate', file]);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(message);
      expectNoStackTrace(result.stdout + result.stderr);
    });
  }

  it('reports a missing file without a stack trace', async () => {
    const result = await societyInProcess(['validate', join(dir, 'nope.society.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot read');
    expectNoStackTrace(result.stderr);
  });
});

describe('society inspect', () => {
  it('prints the compiled machines as JSON', async () => {
    const result = await societyInProcess(['inspect', VQA]);
    expect(result.code).toBe(0);
    const machines = JSON.parse(result.stdout);
    expect(machines.root.id).toBe('society');
    expect(Object.keys(machines.root.states.running.meta.nodes)).toEqual(
      expect.arrayContaining(['question', 'image', 'storm', 'answer']),
    );
    expect(Object.keys(machines.children)).toEqual(
      expect.arrayContaining(['loop:storm', 'scope:storm:init', 'scope:storm:round']),
    );
  });
});

describe('society run', () => {
  it('runs the VQA template with the simulated provider', async () => {
    const result = await societyInProcess(['run', VQA, ...vqaInputs, '--simulate', '--json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.status).toBe('succeeded');
    expect(out.simulated).toBe(true);
    expect(out.outputs.answer).toMatch(/^\[simulated\] \([a-d]\)$/);
    expect(out.usage.calls).toBe(3 + 3 * 4 + 2);
    expect(typeof out.runId).toBe('string');
  });

  it('replays the shipped cassette with no key and no network, matching a simulated run', async () => {
    const replay = await societyInProcess([
      'run',
      VQA,
      ...vqaInputs,
      '--replay',
      CASSETTE,
      '--json',
    ]);
    const simulated = await societyInProcess(['run', VQA, ...vqaInputs, '--simulate', '--json']);
    expect(replay.code).toBe(0);
    const a = JSON.parse(replay.stdout);
    const b = JSON.parse(simulated.stdout);
    expect(a.mode).toBe('replay');
    expect(JSON.stringify(a.outputs)).toBe(JSON.stringify(b.outputs));
    expect(a.usage).toEqual(b.usage);
  });

  it('fails a run whose template loops 10^8 times, in one line', async () => {
    const file = write(
      'loop.json',
      doc(
        [
          node('q', 'input', { name: 'q' }),
          node('t', 'transform', { template: '{{ q }}{% for i in (1..100000000) %}{% endfor %}' }),
          node('o', 'output', { name: 'o' }),
        ],
        [edge('e1', 'q', 'value', 't', 'q'), edge('e2', 't', 'value', 'o', 'value')],
      ),
    );
    const result = await societyInProcess(['run', file, '--simulate', '--input', 'q=hi']);
    expect(result.code).toBe(1);
    // The error, then the command that continues the run once the cause is fixed.
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^society: node "t": its template went past the 100,000-iteration loop limit \(settings\.limits\.templateIterations\) — fix the cause, then: society resume [0-9a-f]{16}$/,
    );
    expectNoStackTrace(result.stderr);
  });

  it('fails a replay that misses the cassette, naming the node', async () => {
    const result = await societyInProcess([
      'run',
      VQA,
      '--input',
      'question=Another question? (a) x (b) y',
      '--input',
      `image=@${IMAGE}`,
      '--replay',
      CASSETTE,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^society: node "organizer" \(organizer@r1\): no recording of this request in nlsom-vqa\.cassette\.json; the nearest recording differs at messages\[0\]\.content: ".*options: Another question\? \(a\) x \(b\) y.*" here, ".*options: What is the large.*" recorded$/m,
    );
    expectNoStackTrace(result.stderr);
  });

  describe('against an OpenAI-compatible server over HTTP', () => {
    let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
    beforeAll(async () => {
      stub = await startStubOpenAI({
        respond: (body) => {
          const last = body.messages[body.messages.length - 1];
          const text = typeof last.content === 'string' ? last.content : last.content[0].text;
          if (/letter only/.test(text)) return { text: '(a)' };
          if (/ending with "\?"/.test(text)) return { text: 'Is the shape round? It matters.' };
          return { text: 'A red circle above green grass.' };
        },
      });
    });
    afterAll(() => stub.close());

    it('makes exactly the calls the protocol implies, and replays them byte for byte', async () => {
      const cassette = join(dir, 'live.cassette.json');
      // In this process (the stub answers from here too): two process start-ups would be most
      // of this test's time on a loaded machine.
      const live = await societyInProcess([
        'run',
        VQA,
        ...vqaInputs,
        '--provider',
        `openai=${stub.url}`,
        '--record',
        cassette,
        '--json',
        '--db',
        TEST_DB,
      ]);
      expect(live.code).toBe(0);
      // 3 descriptions; each of 3 rounds: 1 organizer question + 3 member answers; summary; decision.
      expect(stub.count()).toBe(3 + 3 * (1 + 3) + 1 + 1);
      const organizerCalls = stub.requests.filter((r) =>
        JSON.stringify(r.messages).includes('ask the observers one new short question'),
      );
      expect(organizerCalls).toHaveLength(3);
      const imageCalls = stub.requests.filter((r) =>
        JSON.stringify(r.messages).includes('"image_url"'),
      );
      expect(imageCalls).toHaveLength(3 + 3 * 3);
      const liveOut = JSON.parse(live.stdout);
      expect(liveOut.outputs.answer).toBe('(a)');
      expect(liveOut.simulated).toBe(false);

      const before = stub.count();
      const replay = await societyInProcess([
        'run',
        VQA,
        ...vqaInputs,
        '--replay',
        cassette,
        '--json',
        '--db',
        TEST_DB,
      ]);
      expect(replay.code).toBe(0);
      expect(stub.count()).toBe(before);
      expect(JSON.stringify(JSON.parse(replay.stdout).outputs)).toBe(
        JSON.stringify(liveOut.outputs),
      );
    });
  });

  it('refuses with a clear message when the key is missing (exit 2, before the run)', async () => {
    const result = await societyInProcess(['run', VQA, ...vqaInputs]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OPENAI_API_KEY is not set');
    expectNoStackTrace(result.stderr);
  });

  it('fails after the configured attempts when the server answers 500 forever', async () => {
    const stub = await startStubOpenAI({
      respond: () => ({
        status: 500,
        body: { error: { message: 'the server is on fire', type: 'server_error', code: null } },
      }),
    });
    try {
      const file = write(
        'retry.json',
        doc(
          [
            node('a', 'agent', { prompt: 'Say hi', model: 'm' }),
            node('out', 'output', { name: 'reply' }),
          ],
          [edge('e', 'a', 'text', 'out', 'value')],
          {
            settings: { retry: { attempts: 3, baseMs: 5, maxMs: 20 } },
          },
        ),
      );
      const result = await societyInProcess([
        'run',
        file,
        '--provider',
        `openai=${stub.url}`,
        '--json',
      ]);
      expect(result.code).toBe(1);
      expect(stub.count()).toBe(3);
      const out = JSON.parse(result.stdout);
      expect(out.status).toBe('failed');
      expect(out.error).toMatch(/node "a": gave up after 3 attempts: HTTP 500/);
    } finally {
      await stub.close();
    }
  });

  const badArgs: Array<[string, string[], RegExp]> = [
    [
      'an unknown input',
      ['--input', 'colour=red'],
      /unknown input "colour" \(this graph takes: question, image\)/,
    ],
    [
      'an image given as text',
      ['--input', 'image=not-a-file'],
      /input "image" is an image: pass a file/,
    ],
    ['an unreadable image file', ['--input', 'image=@missing.png'], /cannot read "missing.png"/],
    [
      'two cassette modes',
      ['--replay', CASSETTE, '--record', join(tmpdir(), 'x.json')],
      /only one of --replay/,
    ],
    ['an unknown option', ['--bogus'], /unknown option '--bogus'/],
  ];
  for (const [what, args, message] of badArgs) {
    it(`exits 2 for ${what}`, async () => {
      const result = await societyInProcess(['run', VQA, ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expectNoStackTrace(result.stderr);
    });
  }

  it('writes every event to an NDJSON file', async () => {
    const events = join(dir, 'events.ndjson');
    const result = await societyInProcess([
      'run',
      VQA,
      ...vqaInputs,
      '--simulate',
      '--events',
      events,
      '-q',
    ]);
    expect(result.code).toBe(0);
    const lines = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].type).toBe('run.started');
    expect(lines.at(-1).type).toBe('run.finished');
    expect(lines.map((e) => e.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(lines.filter((e) => e.type === 'round.started')).toHaveLength(3);
    expect(result.stdout).toMatch(/^answer: \[simulated\] \([a-d]\)$/m);
  });
});

describe('society run --estimate', () => {
  it('prints calls, tokens and money for the VQA template before any call', async () => {
    const stub = await startStubOpenAI();
    try {
      const result = await societyInProcess([
        'run',
        VQA,
        ...vqaInputs,
        '--estimate',
        '--provider',
        `openai=${stub.url}`,
      ]);
      expect(result.code).toBe(0);
      expect(stub.count()).toBe(0);
      expect(result.stdout).toMatch(/worst case: 17 calls, ~[\d,]+ tokens, \$0\.\d+/);
      expect(result.stdout).toMatch(/^organizer\s+gpt-4o-mini\s+3\s/m);
    } finally {
      await stub.close();
    }
  });
});

describe('society run --step', () => {
  it('steps message by message, edits a held message and continues', async () => {
    const result = await society(
      ['run', VQA, ...vqaInputs, '--simulate', '--step', '--json'],
      {},
      'n\nn\np\ne It is a red circle.\nc\n',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('⏸ paused: before node question starts');
    expect(result.stderr).toMatch(/⏸ step: before describe#0@init sends: \[simulated\]/);
    expect(result.stderr).toMatch(/⏸ step: before describe#1@init sends: \[simulated\]/);
    expect(result.stderr).toMatch(/held: before describe#1@init sends/);
    expect(result.stderr).toContain('describe#1@init will send: It is a red circle.');
    const out = JSON.parse(result.stdout);
    expect(out.outputs.transcript).toContain('Round 0, describe#1@init: It is a red circle.');
  });

  it('stops at a breakpoint on round 2 and shows what an agent was sent', async () => {
    const result = await society(
      ['run', VQA, ...vqaInputs, '--simulate', '--break', 'round:2', '--json'],
      {},
      'p\np organizer\nc\n',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('⏸ breakpoint: before storm round 2');
    expect(result.stderr).toContain('storm: round 2 of 3');
    expect(result.stderr).toMatch(/organizer@r1 → simulated gpt-4o-mini \(call organizer@r1:1\)/);
    expect(result.stderr).toMatch(
      /\[user, ~\d+ tokens\]\nOur team is answering a multiple-choice question/,
    );
  });

  it('rejects a breakpoint it cannot read', async () => {
    const result = await societyInProcess([
      'run',
      VQA,
      ...vqaInputs,
      '--simulate',
      '--break',
      'lunch:noon',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown breakpoint "lunch:noon"/);
  });
});

describe('the run store from the command line', () => {
  it('lists and shows runs with usage by node and round', async () => {
    const run = await societyInProcess(['run', VQA, ...vqaInputs, '--simulate', '--json', '-q']);
    const { runId } = JSON.parse(run.stdout);
    const list = await societyInProcess(['runs']);
    expect(list.stdout).toMatch(new RegExp(`^${runId}\\s+NLSOM visual question answering`, 'm'));
    const show = await societyInProcess(['show', runId.slice(0, 8)]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('— storm: round 2 —');
    expect(show.stdout).toMatch(/usage by round:\n {2}init\s+3 calls/);
    expect(show.stdout).toMatch(/^ {2}round 3\s+4 calls/m);
    const missing = await societyInProcess(['show', 'zzzz']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run "zzzz"/);
  });

  it('keeps an editable price table', async () => {
    const set = await societyInProcess(['prices', '--set', 'my-model=1.5/3']);
    expect(set.stdout).toMatch(/^my-model\s+1\.500\s+3\.000 {2}\(yours\)$/m);
    const bad = await societyInProcess(['prices', '--set', 'my-model=cheap']);
    expect(bad.code).toBe(2);
    const unset = await societyInProcess(['prices', '--unset', 'my-model']);
    expect(unset.stdout).not.toContain('my-model');
  });

  it('stores provider profiles but never a key', async () => {
    const add = await societyInProcess([
      'providers',
      '--add',
      'lab=http://127.0.0.1:9/v1',
      '--key-env',
      'LAB_TOKEN',
    ]);
    expect(add.stdout).toMatch(
      /^lab\s+http:\/\/127\.0\.0\.1:9\/v1\s+key in LAB_TOKEN \(not set\) {2}\(yours\)$/m,
    );
    const keyInstead = await societyInProcess([
      'providers',
      '--add',
      'oops=http://127.0.0.1:9/v1',
      '--key-env',
      `sk-${'a'.repeat(30)}`,
    ]);
    expect(keyInstead.code).toBe(2);
    expect(keyInstead.stderr).toMatch(/never the key/);
  });
});
