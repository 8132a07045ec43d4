/**
 * A mindstorm's communication topology as a user meets it: on the wire (what each member is
 * shown under the right to know), in the estimate, in the checks, and swept by an eval.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { societyHere } from '../../tests/support/cli.ts';
import {
  agent,
  compile,
  edge,
  graph,
  input,
  node,
  output,
  problems,
  run,
} from '../../tests/support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from '../../tests/support/stub-openai.ts';
import { regularEdges, visibility } from './topology.ts';

const inStorm = { parentId: 'storm' };
const WHO = ['ann', 'bob', 'cy', 'dee', 'eve'];

/** An organizer asks, five copies of one member answer each round; members hold the right to know. */
function storm(topology: Record<string, unknown>, rounds = 2) {
  return graph(
    [
      input('question'),
      node('storm', 'mindstorm', {
        maxRounds: rounds,
        members: ['member'],
        rights: { rtk: true },
        ...topology,
      }),
      agent('organizer', 'ORGANIZER {{ question }}', {}, inStorm),
      agent(
        'member',
        'MEMBER {{ who }}: {{ ask }}',
        { replicate: { items: WHO, as: 'who' } },
        inStorm,
      ),
      output('rounds'),
    ],
    [
      edge('question.value', 'organizer.question'),
      edge('organizer.text', 'member.ask'),
      edge('storm.rounds', 'rounds.value'),
    ],
    { models: { m: { provider: 'openai', model: 'gpt-test', maxTokens: 40 } } },
  );
}

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** Each member answers `said-<who>-r<round>`, so a prompt shows whose answers it carries. */
async function serve(): Promise<StubOpenAI> {
  const round = new Map<string, number>();
  stub = await startStubOpenAI({
    respond: (body) => {
      const user = JSON.stringify(body.messages.at(-1).content);
      const who = /MEMBER (\w+):/.exec(user)?.[1];
      if (!who) return { text: 'What do you see?' };
      const r = (round.get(who) ?? 0) + 1;
      round.set(who, r);
      return { text: `said-${who}-r${r}` };
    },
  });
  return stub;
}

/** The round-2 prompt each member was sent, by member. */
function secondRoundPrompts(s: StubOpenAI): Map<string, string> {
  const prompts = new Map<string, string>();
  for (const body of s.requests) {
    const user = JSON.stringify(body.messages.at(-1).content);
    const who = /MEMBER (\w+):/.exec(user)?.[1];
    if (who && user.includes('Context from the previous round')) prompts.set(who, user);
  }
  return prompts;
}

describe('a mindstorm topology', () => {
  it('sends each member of a ring only its neighbours’ answers, checked on the wire', async () => {
    const s = await serve();
    const result = await run(storm({ topology: 'ring' }), {
      providerOverrides: { openai: { baseUrl: s.url, apiKeyEnv: '' } },
      env: {},
      inputs: { question: 'What is it?' },
    });
    expect(result.status).toBe('succeeded');
    const prompts = secondRoundPrompts(s);
    expect([...prompts.keys()].sort()).toEqual([...WHO].sort());
    WHO.forEach((who, i) => {
      const prompt = prompts.get(who)!;
      const before = WHO[(i + WHO.length - 1) % WHO.length]!;
      const after = WHO[(i + 1) % WHO.length]!;
      for (const seen of [before, who, after]) expect(prompt).toContain(`said-${seen}-r1`);
      for (const other of WHO.filter((w) => ![before, who, after].includes(w))) {
        expect(prompt).not.toContain(`said-${other}-r1`);
      }
    });
  });

  it('shows every member every answer under full, and the hub alone under star', async () => {
    const promptsUnder = async (topology: Record<string, unknown>) => {
      const s = await serve();
      const result = await run(storm(topology), {
        providerOverrides: { openai: { baseUrl: s.url, apiKeyEnv: '' } },
        env: {},
        inputs: { question: 'What is it?' },
      });
      expect(result.status).toBe('succeeded');
      await s.close();
      stub = undefined;
      return secondRoundPrompts(s);
    };
    for (const prompt of (await promptsUnder({})).values()) {
      for (const who of WHO) expect(prompt).toContain(`said-${who}-r1`);
    }
    // The first member is the hub: it sees everyone, the others see the hub and themselves.
    const star = await promptsUnder({ topology: 'star' });
    for (const who of WHO) expect(star.get('ann')).toContain(`said-${who}-r1`);
    expect(star.get('cy')).toContain('said-ann-r1');
    expect(star.get('cy')).toContain('said-cy-r1');
    for (const other of ['bob', 'dee', 'eve']) {
      expect(star.get('cy')).not.toContain(`said-${other}-r1`);
    }
  });

  it('estimates fewer input tokens for a ring than for full on the same document', async () => {
    const promptTokens = async (topology: Record<string, unknown>) => {
      const { plan } = await compile(storm(topology, 4));
      return estimateRun(plan, DEFAULT_PRICES, { inputs: { question: 'What is it?' } })
        .byNode.filter((r) => r.node === 'member')
        .reduce((sum, r) => sum + r.promptTokens, 0);
    };
    const full = await promptTokens({});
    const ring = await promptTokens({ topology: 'ring' });
    const regular = await promptTokens({ topology: 'k-regular', k: 2, seed: 7 });
    expect(ring).toBeLessThan(full);
    // Every member of a 2-regular graph sees as many others as on a ring.
    expect(regular).toBe(ring);
  });

  it('refuses an adjacency naming someone who is not a member, and an impossible k', async () => {
    const bad = await problems(
      storm({ topology: 'adjacency', adjacency: { 'member#0': ['member#1', 'member#9'] } }),
    );
    expect(bad.map((p) => p.message).join('\n')).toContain(
      'topology: adjacency names "member#9", not a member of this mindstorm (members: member#0, member#1, member#2, member#3, member#4)',
    );
    const odd = await problems(storm({ topology: 'k-regular', k: 3 }));
    expect(odd.map((p) => p.message).join('\n')).toContain(
      'no 3-regular graph has 5 members: k × members must be even',
    );
    const wrong = await problems(storm({ topology: 'mesh' }));
    expect(wrong.map((p) => `${String(p.path)}: ${p.message}`).join('\n')).toMatch(/topology/);
  });

  it('draws a k-regular graph from its seed: every member sees k others, the same each time', () => {
    for (const [n, k] of [
      [6, 3],
      [8, 2],
      [7, 4],
    ] as const) {
      const edges = regularEdges(n, k, 3);
      const degree = Array.from({ length: n }, (_, v) => edges.filter((e) => e.includes(v)).length);
      expect(degree).toEqual(Array(n).fill(k));
      expect(regularEdges(n, k, 3)).toEqual(edges);
    }
    const names = ['a', 'b', 'c', 'd'];
    const sees = visibility({ topology: 'ring', k: 2, seed: 1, adjacency: {} }, names);
    expect([...sees.get('a')!].sort()).toEqual(['a', 'b', 'd']);
  });
});

describe('a topology sweep', () => {
  it('prints one row per topology', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topology-eval-'));
    const doc = storm({ topology: { $param: 'topology' } });
    doc.params = {
      topology: { type: 'enum', values: ['full', 'star', 'ring'], default: 'full' },
    };
    writeFileSync(join(dir, 'storm.society.json'), JSON.stringify(doc));
    writeFileSync(
      join(dir, 'items.jsonl'),
      `${JSON.stringify({ question: 'What is it?', answer: '2' })}\n`,
    );
    const { code, stdout, stderr } = await societyHere([
      'eval',
      join(dir, 'storm.society.json'),
      '--data',
      join(dir, 'items.jsonl'),
      '--map',
      'question=question',
      '--expect',
      'answer',
      '--simulate',
      '--quiet',
      '--db',
      join(dir, 'runs.db'),
      '--variant',
      'full=',
      '--variant',
      'ring=--set topology=ring',
      '--variant',
      'star=--set topology=star',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // The variants' table: a header, a row each, then a blank line before the paired tests.
    const lines = stdout.split('\n');
    const header = lines.findIndex((l) => l.startsWith('variant  n'));
    const table = lines.slice(header, lines.indexOf('', header));
    const columns = table[0]!.split(/\s{2,}/);
    const rows = table.slice(1).map((l) => l.split(/\s{2,}/));
    expect(rows.map((r) => r[0])).toEqual(['full', 'ring', 'star']);
    // Members shown fewer answers send fewer tokens (simulated usage, counted from the prompts).
    const tokens = rows.map((r) => Number(r[columns.indexOf('tokens')]!.replace(/,/g, '')));
    expect(tokens[1]).toBeLessThan(tokens[0]!);
    expect(tokens[2]).toBeLessThan(tokens[0]!);
  });
});
