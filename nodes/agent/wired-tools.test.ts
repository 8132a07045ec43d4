/**
 * Nodes wired into an agent's `tools` port (an expert, a sub-society), offered to it as tools:
 * what validation refuses, a simulated run calling them, the schema a model is sent, the expert
 * receiving the model's arguments, the estimate, and a replay making no request.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere, TEST_DB } from '../../tests/support/cli.ts';
import { type StubHf, startStubHuggingFace } from '../../tests/support/stub-hf.ts';
import {
  type StubOpenAI,
  type StubRequestBody,
  startStubOpenAI,
} from '../../tests/support/stub-openai.ts';

const FIXTURE = 'tests/fixtures/wired-tools.society.json';
const dir = mkdtempSync(join(tmpdir(), 'society-wired-'));
const doc = () => JSON.parse(readFileSync(FIXTURE, 'utf8'));
/** Writes a variant of the fixture and returns its path. */
function variant(name: string, edit: (d: ReturnType<typeof doc>) => void): string {
  const d = doc();
  edit(d);
  const path = join(dir, `${name}.society.json`);
  writeFileSync(path, JSON.stringify(d));
  return path;
}

let llm: StubOpenAI;
let hf: StubHf;
const toolResult = (body: StubRequestBody) =>
  body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1)?.content ?? '';

beforeAll(async () => {
  hf = await startStubHuggingFace({
    respond: (request) => ({
      body: [{ translation_text: `DE: ${String((request.json as { inputs: unknown }).inputs)}` }],
    }),
  });
  llm = await startStubOpenAI({
    respond: (body) => {
      const user = String(body.messages.at(-1)?.content ?? '');
      if (user.startsWith('Advise:')) return { text: 'Take the train.' };
      const results = body.messages.filter((m: { role: string }) => m.role === 'tool').length;
      if (results === 0) {
        return {
          text: '',
          toolCalls: [
            { name: 'translate', arguments: { text: 'good morning' } },
            { name: 'advisor', arguments: { question: 'car or train?' } },
          ],
        };
      }
      return { text: `Done: ${toolResult(body)}` };
    },
  });
});
afterAll(async () => {
  await llm.close();
  await hf.close();
});

const live = (file: string, extra: string[] = []) => [
  'run',
  file,
  '--input',
  'q=Say good morning in German and advise me',
  '--provider',
  `openai=${llm.url}`,
  '--provider',
  `hf-inference=${hf.url},kind=huggingface`,
  '--db',
  TEST_DB,
  '--json',
  '-q',
  ...extra,
];

describe('nodes wired into an agent’s tools port', () => {
  it('validate: the document is valid, its wires kept', async () => {
    const result = await societyHere(['validate', FIXTURE]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // The two offered nodes left the flow; the count says so rather than losing them.
    expect(result.stdout).toMatch(/: valid \(\d+ nodes, \d+ edges, 2 offered as tools\)\n$/);
  });

  it('--simulate: the agent calls the tool, which runs as its child a/tool1/…', async () => {
    const file = variant('simulated', (d) => {
      d.nodes[1].data.prompt = 'Ask the advisor: {{ q }}';
    });
    const events = join(dir, 'simulated.ndjson');
    const result = await societyHere([
      'run',
      file,
      '--simulate',
      '--input',
      'q=hi',
      '--json',
      '-q',
      '--db',
      TEST_DB,
      '--events',
      events,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.outputs.answer).toMatch(/^\[simulated\] According to the tools: advisor gave/);
    const lines = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((e) => e.type === 'tool.call')).toMatchObject([
      { instance: 'a', source: 'graph:advisor', tool: 'advisor' },
    ]);
    const inner = lines.filter((e) => e.type === 'model.response' && e.instance !== 'a');
    expect(inner.map((e) => e.instance)).toEqual(['a/tool1/advisor/advisor']);
  });

  it('live: the schema lists the offered node’s inputs, the expert gets the model’s arguments; a replay makes 0 requests', async () => {
    const cassette = join(dir, 'wired.cassette.json');
    const events = join(dir, 'wired.ndjson');
    const before = { llm: llm.count(), hf: hf.requests.length };
    const result = await societyHere(live(FIXTURE, ['--record', cassette, '--events', events]));
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.outputs.answer).toMatch(/^Done: /);
    const first = llm.requests[before.llm]!;
    const tools = first.tools.map((t: { function: { name: string } }) => t.function);
    expect(tools).toMatchObject([
      {
        name: 'translate',
        description:
          'Translates English text into German. Expert model "translate": machine-translation.',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        },
      },
      {
        name: 'advisor',
        parameters: { properties: { question: { type: 'string' } }, required: ['question'] },
      },
    ]);
    // The expert was sent what the model wrote; the advisor's agent ran as a child of `a`.
    const asked = hf.requests.slice(before.hf);
    expect(asked.map((r) => (r.json as { inputs: unknown }).inputs)).toEqual(['good morning']);
    const lines = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const children = lines
      .filter((e) => e.type === 'node.finished' && String(e.instance).startsWith('a/tool'))
      .map((e) => e.instance);
    expect(children).toContain('a/tool1/translate');
    expect(children).toContain('a/tool2/advisor/advisor');
    const results = lines.filter((e) => e.type === 'tool.result').map((e) => e.result);
    expect(results.sort()).toEqual(['DE: good morning', 'Take the train.']);

    const counted = { llm: llm.count(), hf: hf.requests.length };
    const replay = await societyHere(live(FIXTURE, ['--replay', cassette]));
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).outputs.answer).toBe(out.outputs.answer);
    expect({ llm: llm.count(), hf: hf.requests.length }).toEqual(counted);
  });

  it('--estimate counts the tools’ calls under the agent', async () => {
    const result = await societyHere(['run', FIXTURE, '--estimate', '--input', 'q=hi']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/a \(via tool translate\)\s+t5-base\s+0\.5/);
    expect(result.stdout).toMatch(/a \(via tool advisor\)\s+gpt-4o-mini\s+0\.5/);
    expect(result.stdout).toMatch(
      /a \(via tool advisor, up to 4 calls\)\s+gpt-4o-mini\s+-\s+-\s+-\s+-\s+4/,
    );
  });

  it('refuses, in one line naming the fix, what cannot be offered', async () => {
    const cases: Array<[string, (d: ReturnType<typeof doc>) => void, string]> = [
      [
        'fed',
        (d) =>
          d.edges.push({
            id: 'f',
            source: 'q',
            sourceHandle: 'value',
            target: 'translate',
            targetHandle: 'text',
          }),
        'node "translate" (edges[1]): it is offered as a tool to a, so its inputs come from a\'s calls: remove the wire from q',
      ],
      [
        'feeding',
        (d) =>
          d.edges.push({
            id: 'f',
            source: 'translate',
            sourceHandle: 'text',
            target: 'answer',
            targetHandle: 'value',
          }),
        'node "translate" (edges[1]): it is offered as a tool to a, so it runs once per call, not in the flow: remove the wire to answer',
      ],
      [
        'input',
        (d) =>
          d.edges.push({
            id: 'f',
            source: 'q',
            sourceHandle: 'value',
            target: 'a',
            targetHandle: 'tools',
          }),
        'node "q" (edges[4]): a run input cannot be offered as a tool: remove the wire to a.tools and wire a node that does the work',
      ],
      [
        'picture',
        (d) => {
          d.nodes[2].data.module = 'image-captioning';
        },
        'node "translate" (edges[1]): its input "image" is image, which a model cannot write: give a an input "image" and wire the image into it, so every call is given it',
      ],
      [
        'clash',
        (d) => {
          d.nodes[3].data.label = 'translate';
        },
        'node "advisor" (edges[2]): its tool name "translate" is taken by another node offered to a: give one of them another label',
      ],
    ];
    for (const [name, edit, line] of cases) {
      const result = await societyHere(['validate', variant(name, edit)]);
      expect(result.code, name).toBe(2);
      expect(result.stdout.trim().split('\n'), name).toEqual([
        `${join(dir, `${name}.society.json`)}: ${line}`,
      ]);
    }
  });
});
