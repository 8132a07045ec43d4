/** The engine's calls: budgets, costs, and reproducible runs from the simulator or a cassette. */
import { describe, expect, it } from 'vitest';
import { FakeProvider, fatal } from '../../tests/support/fake-provider.ts';
import { fan } from '../../tests/support/fan.ts';
import { agent, edge, eventsOf, graph, input, output, run } from '../../tests/support/graphs.ts';
import { Cassette } from '../providers/cassette.ts';
import type { RunSettings } from '../schema/document.ts';

describe('budgets', () => {
  const three = (budget: NonNullable<RunSettings['budget']>) =>
    graph(
      [
        input('q'),
        agent('a', 'a {{ q }}'),
        agent('b', 'b {{ x }}'),
        agent('c', 'c {{ x }}'),
        output('o'),
      ],
      [
        edge('q.value', 'a.q'),
        edge('a.text', 'b.x'),
        edge('b.text', 'c.x'),
        edge('c.text', 'o.value'),
      ],
      { settings: { budget } },
    );

  it('stops at maxCalls and says the budget ran out', async () => {
    const fake = new FakeProvider();
    const result = await run(three({ maxCalls: 2 }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(fake.calls).toHaveLength(2);
    expect(result.usage.calls).toBe(2);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^node "c": .*budget/);
  });

  it('stops at maxCalls when the calls are made in parallel', async () => {
    const fake = new FakeProvider(() => ({ text: 'ok', delayMs: 5 }));
    const result = await run(fan(3, { budget: { maxCalls: 2 } }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(fake.calls).toHaveLength(2);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/budget exceeded: the run may make at most 2 model calls/);
  });

  it('stops at maxTokens and says the budget ran out', async () => {
    const fake = new FakeProvider(() => ({
      text: 'ok',
      usage: { promptTokens: 10, completionTokens: 10 },
    }));
    const result = await run(three({ maxTokens: 30 }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(fake.calls).toHaveLength(2);
    expect(result.usage.totalTokens).toBe(40);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/budget exceeded: .*30 tokens/);
  });

  it('counts usage when the budget is not reached', async () => {
    const fake = new FakeProvider(() => ({
      text: 'ok',
      usage: { promptTokens: 3, completionTokens: 2 },
    }));
    const result = await run(three({ maxCalls: 3 }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(result.status).toBe('succeeded');
    expect(result.usage).toEqual({
      calls: 3,
      promptTokens: 9,
      completionTokens: 6,
      totalTokens: 15,
      costUsd: 0,
    });
  });
});

describe('costs', () => {
  const three = (_: object) =>
    graph(
      [
        input('q'),
        agent('a', 'a {{ q }}'),
        agent('b', 'b {{ x }}'),
        agent('c', 'c {{ x }}'),
        output('o'),
      ],
      [
        edge('q.value', 'a.q'),
        edge('a.text', 'b.x'),
        edge('b.text', 'c.x'),
        edge('c.text', 'o.value'),
      ],
    );
  const prices = { 'test-model': { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } };

  it('prices every live call and the run', async () => {
    const fake = new FakeProvider(() => ({
      text: 'ok',
      usage: { promptTokens: 3, completionTokens: 2 },
    }));
    const result = await run(three({}), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      prices,
    });
    // $1 per prompt token and $2 per completion token: 3 + 4 = $7 per call.
    expect(eventsOf(result.events, 'model.response').map((e) => e.costUsd)).toEqual([7, 7, 7]);
    expect(result.usage.costUsd).toBe(21);
  });

  it('stops before a call that could overrun the money budget', async () => {
    const fake = new FakeProvider(() => ({
      text: 'ok',
      usage: { promptTokens: 3, completionTokens: 2 },
    }));
    const doc = three({});
    doc.settings = { ...doc.settings, concurrency: { default: 1 }, budget: { maxCostUsd: 0.5 } };
    doc.models = { m: { provider: 'test', model: 'test-model', maxTokens: 1 } };
    const cheap = { 'test-model': { inputPerMillion: 0, outputPerMillion: 200_000 } };
    // Each call may cost up to 1 completion token = $0.20 and really costs 2 × $0.20 = $0.40.
    const result = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      prices: cheap,
    });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/budget exceeded: .*at most \$0\.5/);
    expect(fake.calls).toHaveLength(1);
  });

  it('charges nothing for answers from a cassette or the simulator', async () => {
    const result = await run(three({}), { simulate: true, inputs: { q: '?' }, prices });
    expect(result.usage.costUsd).toBe(0);
  });
});

describe('reproducibility', () => {
  it('gives the same outputs for the same simulated run', async () => {
    const first = await run(fan(3), { simulate: true, inputs: { q: 'same?' } });
    const second = await run(fan(3), { simulate: true, inputs: { q: 'same?' } });
    expect(second.outputs).toEqual(first.outputs);
  });

  it('replays a recorded run from its cassette without calling the provider', async () => {
    const cassette = new Cassette();
    const live = new FakeProvider((call) => `live answer to ${call.user}`);
    const recorded = await run(fan(3), {
      providerFor: live.providerFor,
      cassette: { cassette, mode: 'record' },
      inputs: { q: 'again?' },
    });
    expect(live.calls).toHaveLength(3);
    const offline = new FakeProvider(() => fatal('no network'));
    const replayed = await run(fan(3), {
      providerFor: offline.providerFor,
      cassette: { cassette: Cassette.fromJSON(cassette.toJSON()), mode: 'replay' },
      inputs: { q: 'again?' },
    });
    expect(offline.calls).toHaveLength(0);
    expect(replayed.status).toBe('succeeded');
    expect(replayed.outputs).toEqual(recorded.outputs);
    for (const e of eventsOf(replayed.events, 'model.response')) expect(e.source).toBe('cassette');
  });

  it('says which call is missing from a cassette in strict replay', async () => {
    const { error } = await run(fan(1), {
      cassette: { cassette: new Cassette(), mode: 'replay' },
      inputs: { q: 'never recorded' },
    });
    expect(error).toMatch(
      /^node "a0": the cassette holds no model answers \(model "test-model", last user message "a0: never recorded"/,
    );
  });
});
