import { describe, expect, it } from 'vitest';
import { estimatePromptTokens } from '../../app/providers/text.ts';
import { estimateOf, sentRequests } from '../../tests/support/estimates.ts';
import { edge, graph, node, output } from '../../tests/support/graphs.ts';

const MODELS = { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 100 } };

/** A kitchen and a model dispatcher playing it. */
function kitchen(dispatcher: Record<string, unknown> = {}, world: Record<string, unknown> = {}) {
  return graph(
    [
      node('kitchen', 'environment', { level: 'level_3', agents: 2, maxSteps: 10, ...world }),
      node('dispatcher', 'dispatcher', { model: 'm', ...dispatcher }),
      output('summary'),
    ],
    [edge('kitchen.world', 'dispatcher.world'), edge('dispatcher.summary', 'summary.value')],
    { models: MODELS },
  );
}

describe('the dispatcher estimate', () => {
  it('makes one call per step of the episode the environment sets up', async () => {
    expect((await estimateOf(kitchen({}, { maxSteps: 10 }))).calls).toBe(10);
    expect((await estimateOf(kitchen({}, { maxSteps: 25 }))).calls).toBe(25);
  });

  it('estimates the first step as exactly what the dispatcher sends', async () => {
    const doc = kitchen({}, { maxSteps: 1 });
    const [first] = await sentRequests(doc);
    expect((await estimateOf(doc)).promptTokens).toBe(estimatePromptTokens(first!));
  });

  it('follows the prompt: hints, demonstrations, history and more agents change it', async () => {
    const base = (await estimateOf(kitchen())).promptTokens;
    expect(base).toBeGreaterThan(10 * 1000);
    expect((await estimateOf(kitchen({ hints: false }))).promptTokens).toBeLessThan(base);
    expect((await estimateOf(kitchen({ demoSteps: 2 }))).promptTokens).toBeLessThan(base);
    expect((await estimateOf(kitchen({ history: 0 }))).promptTokens).toBeLessThan(base);
    expect((await estimateOf(kitchen({}, { agents: 4 }))).promptTokens).toBeGreaterThan(base);
  });

  it('counts retries in the worst case only, and nothing when people take every seat', async () => {
    const retry = await estimateOf(kitchen({ behaviour: 'retry', retries: 2 }));
    expect(retry.calls).toBe(30);
    expect(retry.firstAttempts.calls).toBe(10);
    expect(retry.byNode.find((r) => r.retry)).toMatchObject({ phase: 'retry', calls: 20 });

    const people = await estimateOf(kitchen({ seats: ['agent0', 'agent1'] }));
    expect(people.calls).toBe(0);
    expect((await estimateOf(kitchen({ controller: 'greedy', model: undefined }))).calls).toBe(0);
  });
});
