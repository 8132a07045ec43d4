/** `society run FILE --estimate --json`: one JSON object a script reads beside a run's usage. */
import { describe, expect, it } from 'vitest';
import { society } from './support/cli.ts';

describe('society run --estimate --json', () => {
  it('prints the dispatcher’s 60 calls and their prompts as one object, per node and in total', async () => {
    const result = await society([
      'run',
      'templates/cuisineworld-dispatcher-2.society.json',
      '--estimate',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const estimate = JSON.parse(result.stdout);
    expect(estimate.nodes).toHaveLength(1);
    const [dispatcher] = estimate.nodes;
    expect(dispatcher).toMatchObject({ id: 'dispatcher', type: 'dispatcher', calls: 60 });
    // Each step sends the rules, recipes, hints, a demonstration, the state and history.
    expect(dispatcher.promptTokens / dispatcher.calls).toBeGreaterThan(1000);
    expect(dispatcher.costUsd).toBeGreaterThan(0);
    expect(estimate.total).toMatchObject({
      calls: 60,
      promptTokens: dispatcher.promptTokens,
      completionTokens: dispatcher.completionTokens,
      costUsd: dispatcher.costUsd,
    });
    // Answers as long as they may be: the worst case.
    expect(estimate.total.worstCase.completionTokens).toBe(60 * 100);
    expect(estimate.total.worstCase.promptTokens).toBeGreaterThan(estimate.total.promptTokens);
  });
});
