import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agent, compile, edge, graph, input, node, output } from '../../tests/support/graphs.ts';
import type { GraphDocument } from '../schema/document.ts';
import { DEFAULT_MAX_TOKENS, estimateRun, formatEstimate } from './estimate.ts';
import { describeShortfall } from './limits-check.ts';
import { callCost, DEFAULT_PRICES, type PriceTable, priceFor } from './prices.ts';

const VQA = new URL('../../templates/nlsom-vqa.society.json', import.meta.url);

/** A fresh copy of the VQA template; `structure` set on its mindstorm when given. */
function vqa(structure?: 'monarchy' | 'democracy'): GraphDocument {
  const doc = JSON.parse(readFileSync(VQA, 'utf8')) as GraphDocument;
  if (structure) doc.nodes.find((n) => n.id === 'storm')!.data.structure = structure;
  return doc;
}

async function estimate(doc: unknown, prices: PriceTable = DEFAULT_PRICES) {
  return estimateRun((await compile(doc)).plan, prices);
}

describe('prices', () => {
  it('finds a model by its exact id', () => {
    expect(priceFor(DEFAULT_PRICES, 'gpt-4o')).toEqual({
      inputPerMillion: 2.5,
      outputPerMillion: 10,
    });
    expect(priceFor(DEFAULT_PRICES, 'gpt-4.1-nano')?.outputPerMillion).toBe(0.4);
  });

  it('finds a dated snapshot by the longest prefix', () => {
    expect(priceFor(DEFAULT_PRICES, 'gpt-4o-mini-2024-07-18')).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceFor(DEFAULT_PRICES, 'gpt-4o-2024-08-06')).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceFor(DEFAULT_PRICES, 'gpt-4.1-mini-2025-04-14')).toBe(
      DEFAULT_PRICES['gpt-4.1-mini'],
    );
  });

  it('has no price for unknown or local models', () => {
    expect(priceFor(DEFAULT_PRICES, 'llama3.2:3b')).toBeUndefined();
    expect(priceFor(DEFAULT_PRICES, 'gpt-4')).toBeUndefined();
    // A prefix must end at a separator: gpt-4o does not price a model called gpt-4omni.
    expect(priceFor(DEFAULT_PRICES, 'gpt-4omni')).toBeUndefined();
    expect(priceFor(DEFAULT_PRICES, 'constructor')).toBeUndefined();
  });

  it('prices a call from its tokens', () => {
    expect(callCost(DEFAULT_PRICES, 'gpt-4o-mini', 1_000_000, 0)).toBeCloseTo(0.15, 10);
    expect(callCost(DEFAULT_PRICES, 'gpt-4o', 2000, 500)).toBeCloseTo(0.005 + 0.005, 10);
    expect(callCost(DEFAULT_PRICES, 'gpt-4.1-nano-2025-04-14', 0, 1_000_000)).toBeCloseTo(0.4, 10);
    expect(callCost(DEFAULT_PRICES, 'local-llama', 1000, 1000)).toBeUndefined();
  });
});

describe('estimateRun: the NLSOM VQA template', () => {
  it('counts its 17 calls with each call at its maxTokens', async () => {
    const doc = vqa();
    const e = await estimate(doc);
    expect(e.calls).toBe(17);
    // 3 descriptions and 9 member answers at 60, 3 questions and the summary at 100, the leader at 10.
    expect(e.completionTokens).toBe(12 * 60 + 4 * 100 + 10);
    const calls = Object.fromEntries(
      ['describe', 'organizer', 'member', 'summary', 'leader'].map((id) => [
        id,
        e.byNode.filter((r) => r.node === id).reduce((n, r) => n + r.calls, 0),
      ]),
    );
    expect(calls).toEqual({ describe: 3, organizer: 3, member: 9, summary: 1, leader: 1 });
    // Each replica's row is on its profile's model, at that profile's maxTokens.
    const members = e.byNode.filter((r) => r.node === 'member');
    expect(members.map((r) => [r.model, r.calls, r.completionTokens])).toEqual([
      ['gpt-4o-mini', 3, 180],
      ['gpt-4.1-mini', 3, 180],
      ['gpt-4.1-nano', 3, 180],
    ]);
    expect(e.unpriced).toEqual([]);
    expect(e.costUsd).toBeGreaterThan(0);
    expect(e.costUsd).toBeCloseTo(
      e.byNode.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
      12,
    );
    expect(e.promptTokens).toBeGreaterThan(0);
  });

  it('grows the organizer prompt with the transcript, round by round', async () => {
    const doc = vqa();
    const e = await estimate(doc);
    const organizer = e.byNode.find((r) => r.node === 'organizer')!;
    // The transcript the organizer reads by round 3 outweighs its own three short prompts.
    expect(organizer.promptTokens).toBeGreaterThan(3 * (180 + 60));
    const summary = e.byNode.find((r) => r.node === 'summary')!;
    // The summary reads the whole transcript: 3 descriptions, then 3 rounds of 1 question and 3 answers.
    expect(summary.promptTokens).toBeGreaterThan(3 * 60 + 3 * (100 + 3 * 60));
  });

  it('a democracy adds member revisions and replaces the leader by member ballots', async () => {
    const monarchy = await estimate(vqa('monarchy'));
    const democracy = await estimate(vqa('democracy'));
    expect(democracy.calls).toBe(17 + 3 * 3 + 3 - 1);
    expect(democracy.byNode.some((r) => r.node === 'leader')).toBe(false);
    const phase = (p: string) =>
      democracy.byNode.filter((r) => r.phase === p).reduce((n, r) => n + r.calls, 0);
    expect(phase('revise')).toBe(9);
    expect(phase('ballot')).toBe(3);
    expect(democracy.completionTokens).toBe(monarchy.completionTokens + 9 * 60 + 3 * 60 - 10);
    // The right to know shows members the previous round's answers: longer prompts.
    const memberPrompt = (e: typeof monarchy) =>
      e.byNode
        .filter((r) => r.node === 'member' && !r.phase)
        .reduce((n, r) => n + r.promptTokens, 0);
    expect(memberPrompt(democracy)).toBeGreaterThan(memberPrompt(monarchy));
    expect(democracy.costUsd).toBeGreaterThan(monarchy.costUsd);
  });

  it('ignores stop conditions: the worst case runs every round', async () => {
    const doc = vqa();
    doc.nodes.find((n) => n.id === 'storm')!.data.until = [
      { kind: 'keyword', node: 'organizer', keyword: 'done' },
    ];
    expect((await estimate(doc)).calls).toBe(17);
  });

  it('formats a table and the totals', async () => {
    const text = formatEstimate(await estimate(vqa()));
    const lines = text.split('\n');
    // The figures say whose they are: a group line above the column names.
    expect(lines[0]).toMatch(/^\s+worst case$/);
    expect(lines[1]).toMatch(/^node\s+model\s+calls\s+prompt\s+completion\s+cost$/);
    expect(lines.find((l) => l.startsWith('leader'))).toMatch(
      /gpt-4o-mini\s+1\s+\d+\s+10\s+\$0\.0000\d+$/,
    );
    expect(lines.at(-1)).toMatch(/^worst case: 17 calls, ~[\d,]+00 tokens, \$0\.00\d+$/);
  });
});

describe('estimateRun: replication, nesting and defaults', () => {
  const letters = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));

  it('a replicated group of 2 agents over 26 items makes 52 calls', async () => {
    const doc = graph(
      [
        input('brief'),
        node('artists', 'group', { replicate: { items: letters, as: 'letter' } }),
        agent('draw', 'Draw {{ letter }} for {{ brief }}', {}, { parentId: 'artists' }),
        agent('judge', 'Judge this {{ letter }}: {{ drawing }}', {}, { parentId: 'artists' }),
        agent('curator', 'Pick the best of {{ verdicts | numbered }}', {
          slots: { verdicts: 'list<text>' },
          maxTokens: 5,
        }),
        output('best'),
      ],
      [
        edge('brief.value', 'draw.brief'),
        edge('draw.text', 'judge.drawing'),
        edge('judge.text', 'curator.verdicts'),
        edge('curator.text', 'best.value'),
      ],
      { models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 50 } } },
    );
    const e = await estimate(doc);
    expect(e.calls).toBe(52 + 1);
    expect(e.byNode.find((r) => r.node === 'draw')?.calls).toBe(26);
    expect(e.byNode.find((r) => r.node === 'judge')?.calls).toBe(26);
    expect(e.completionTokens).toBe(52 * 50 + 5);
    // The curator reads the list of all 26 verdicts.
    expect(e.byNode.find((r) => r.node === 'curator')!.promptTokens).toBeGreaterThan(26 * 50);
  });

  it('a mindstorm inside a replicated group repeats per copy, rounds included', async () => {
    const doc = graph(
      [
        input('topic'),
        node('teams', 'group', { replicate: { items: ['red', 'blue'] } }),
        node(
          'debate',
          'mindstorm',
          { maxRounds: 4, members: ['speaker'], structure: 'democracy', leader: 'chair' },
          { parentId: 'teams' },
        ),
        agent(
          'speaker',
          'Argue about {{ topic }} as team {{ item }}',
          { replicate: { items: [1, 2, 3], as: 'seat' } },
          { parentId: 'debate' },
        ),
        agent('chair', 'Decide on {{ topic }}', { stage: 'decide' }, { parentId: 'debate' }),
      ],
      [edge('topic.value', 'speaker.topic'), edge('topic.value', 'chair.topic')],
    );
    const e = await estimate(doc);
    // Per team: 4 rounds × 3 speakers, 4 × 3 revisions, 3 ballots instead of the chair.
    expect(e.calls).toBe(2 * (12 + 12 + 3));
    expect(e.completionTokens).toBe(e.calls * DEFAULT_MAX_TOKENS);
  });

  it('collect: all leaving a mindstorm delivers every round', async () => {
    const doc = graph(
      [
        node('storm', 'mindstorm', { maxRounds: 5 }),
        agent('idea', 'One more idea', { maxTokens: 20 }, { parentId: 'storm' }),
        agent('pick', 'Pick one: {{ ideas }}', { maxTokens: 5, slots: { ideas: 'list<text>' } }),
      ],
      [edge('idea.text', 'pick.ideas', { collect: 'all' })],
    );
    const e = await estimate(doc);
    expect(e.calls).toBe(6);
    expect(e.byNode.find((r) => r.node === 'pick')!.promptTokens).toBeGreaterThanOrEqual(5 * 20);
  });

  it('replays history: an agent that remembers every round sends longer prompts', async () => {
    const build = (history: unknown) =>
      graph([
        node('storm', 'mindstorm', { maxRounds: 3 }),
        agent('thinker', 'Think again', { maxTokens: 40, history }, { parentId: 'storm' }),
      ]);
    const none = await estimate(build('none'));
    const all = await estimate(build('all'));
    expect(all.calls).toBe(3);
    // Round 2 replays round 1's exchange; round 3 replays rounds 1 and 2.
    expect(all.promptTokens).toBeGreaterThanOrEqual(none.promptTokens + 3 * 40);
  });

  it('uses the default maxTokens, the profile and the node, in that order of precedence', async () => {
    const doc = graph(
      [agent('a', 'x'), agent('b', 'x', { model: 'short' }), agent('c', 'x', { maxTokens: 7 })],
      [],
      {
        models: {
          m: { provider: 'openai', model: 'gpt-4o' },
          short: { provider: 'openai', model: 'gpt-4o', maxTokens: 30 },
        },
      },
    );
    const plan = (await compile(doc)).plan;
    expect(estimateRun(plan, DEFAULT_PRICES).completionTokens).toBe(1024 + 30 + 7);
    expect(estimateRun(plan, DEFAULT_PRICES, { defaultMaxTokens: 200 }).completionTokens).toBe(
      200 + 30 + 7,
    );
  });

  it('counts one element of an input a copy reads only at its own item', async () => {
    const notes = Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, k.repeat(400)]));
    const doc = (prompt: string) =>
      graph(
        [
          input('notes', { modality: 'json' }),
          node('team', 'group', { replicate: { items: ['a', 'b', 'c', 'd'], as: 'who' } }),
          agent('note', prompt, { slots: { notes: 'json' } }, { parentId: 'team' }),
          output('answer'),
        ],
        [edge('notes.value', 'note.notes'), edge('note.text', 'answer.value')],
      );
    const perCall = async (prompt: string) => {
      const e = estimateRun((await compile(doc(prompt))).plan, DEFAULT_PRICES, {
        inputs: { notes },
      });
      return e.promptTokens / e.calls;
    };
    const whole = await perCall('Read {{ notes }}');
    const own = await perCall('Read {{ notes[who] }}');
    // 400 letters are about 100 tokens: the whole record is four of them, a copy's own one.
    expect(whole).toBeGreaterThan(400);
    expect(own).toBeLessThan(whole / 3);
    // Read whole anywhere in the template, it counts whole.
    const both = await perCall('Read {{ notes[who] }}, then all of {{ notes | json }}');
    expect(both).toBeGreaterThan(whole);
    expect(both).toBeLessThan(whole + 10);
  });

  it('counts given input values', async () => {
    const doc = graph(
      [input('q'), agent('a', '{{ q }}'), output('answer')],
      [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
    );
    const plan = (await compile(doc)).plan;
    const without = estimateRun(plan, DEFAULT_PRICES);
    const withQuestion = estimateRun(plan, DEFAULT_PRICES, { inputs: { q: 'x'.repeat(400) } });
    expect(withQuestion.promptTokens).toBe(without.promptTokens + 100);
  });

  it('lists a local or simulated model as unpriced and costs it nothing', async () => {
    const doc = graph(
      [input('q'), agent('a', '{{ q }}'), agent('b', 'Check {{ a }}', { model: 'paid' })],
      [edge('q.value', 'a.q'), edge('a.text', 'b.a')],
      {
        models: {
          m: { provider: 'simulated', model: 'local-llama' },
          paid: { provider: 'openai', model: 'gpt-4o-mini' },
        },
      },
    );
    const e = await estimate(doc);
    expect(e.calls).toBe(2);
    expect(e.unpriced).toEqual(['local-llama']);
    expect(e.byNode.find((r) => r.node === 'a')?.costUsd).toBeUndefined();
    expect(e.costUsd).toBeGreaterThan(0);
    expect(formatEstimate(e)).toMatch(/^a\s+local-llama\s+1\s+\d+\s+1,024\s+no price$/m);
    expect(formatEstimate(e).split('\n').at(-1)).toMatch(/\$[\d.]+ \+ no price for local-llama$/);

    const local = await estimate(
      graph([agent('solo', 'hi')], [], {
        models: { m: { provider: 'simulated', model: 'local-llama' } },
      }),
    );
    expect(local.unpriced).toEqual(['local-llama']);
    expect(local.costUsd).toBe(0);
    expect(formatEstimate(local).split('\n').at(-1)).toBe(
      'worst case: 1 call, ~1,000 tokens, no price for local-llama',
    );
  });

  it('does not count nodes that never call a model', async () => {
    const doc = graph(
      [
        input('q'),
        node('join', 'transform', { template: '{{ q }}!' }),
        node('sum', 'summarize', { mode: 'concatenate' }),
        output('out'),
      ],
      [edge('q.value', 'join.q'), edge('join.value', 'sum.text'), edge('sum.summary', 'out.value')],
    );
    const e = await estimate(doc);
    expect(e).toMatchObject({ calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 });
    expect(e.byNode).toEqual([]);
  });
});

describe('estimateRun: expert calls and likely runs', () => {
  it('counts expert calls apart, with no tokens and no price to miss', async () => {
    const doc = graph(
      [
        input('text'),
        node('fill', 'expert', { module: 'fill-mask' }),
        node('translate', 'expert', { module: 'machine-translation' }),
        output('answer'),
      ],
      [
        edge('text.value', 'fill.text'),
        edge('fill.text', 'translate.text'),
        edge('translate.text', 'answer.value'),
      ],
    );
    const e = await estimate(doc);
    expect(e).toMatchObject({ calls: 2, expertCalls: 2, promptTokens: 0, completionTokens: 0 });
    expect(e.unpriced).toEqual([]);
    expect(e.byNode.map((r) => r.model)).toEqual(['distilbert-base-uncased', 't5-base']);
    expect(formatEstimate(e).split('\n').at(-1)).toBe(
      'worst case: 2 calls (2 to experts), ~0 tokens, $0',
    );
  });

  it('takes answers at a share of their max tokens, in what they cost and where they flow', async () => {
    const doc = graph(
      [input('q'), agent('a', '{{ q }}'), agent('b', 'Check {{ a }}'), output('answer')],
      [edge('q.value', 'a.q'), edge('a.text', 'b.a'), edge('b.text', 'answer.value')],
      { models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 200 } } },
    );
    const plan = (await compile(doc)).plan;
    const worst = estimateRun(plan, DEFAULT_PRICES);
    const likely = estimateRun(plan, DEFAULT_PRICES, { answerShare: 0.5 });
    expect(worst.completionTokens).toBe(400);
    expect(likely.completionTokens).toBe(200);
    // b reads a's answer: 200 tokens at worst, 100 likely.
    expect(worst.promptTokens - likely.promptTokens).toBe(100);
    expect(formatEstimate(worst, likely).split('\n').slice(-2)[0]).toMatch(
      /^likely: 2 calls, ~\d+ tokens, \$0\.\d+$/,
    );
  });
});

describe('a budget too small', () => {
  it('counts one call as one call', () => {
    const shortfall = { limit: 'maxCalls', value: 0, mayStopEarly: false } as const;
    expect(describeShortfall({ ...shortfall, needed: 1 })).toBe(
      'settings.budget.maxCalls is 0 but a run needs about 1 call (likely estimate)',
    );
    expect(describeShortfall({ ...shortfall, needed: 2 })).toContain('about 2 calls');
  });
});
