import { describe, expect, it } from 'vitest';
import { agent, compile, edge, graph, input, node, output } from '../../tests/support/graphs.ts';
import { estimateRun, formatEstimate } from './estimate.ts';
import { DEFAULT_PRICES } from './prices.ts';

/** A vote's tie goes to a judge: the judge runs only behind the router's `tie` branch. */
function tieJudge(odds?: Record<string, number>) {
  return graph(
    [
      input('q'),
      agent('asker', 'Answer: {{ q }}', { maxTokens: 100 }),
      node('route', 'router', { outputs: ['tie'], rules: [], ...(odds ? { odds } : {}) }),
      agent('judge', 'Judge: {{ v }}', { maxTokens: 100 }),
      agent('explain', 'Explain: {{ v }}', { maxTokens: 100 }),
      node('join', 'merge', { inputs: 2 }),
      output('answer'),
    ],
    [
      edge('q.value', 'asker.q'),
      edge('asker.text', 'route.value'),
      edge('route.tie', 'judge.v'),
      edge('judge.text', 'explain.v'),
      edge('judge.text', 'join.a'),
      edge('route.else', 'join.b'),
      edge('join.value', 'answer.value'),
    ],
  );
}

describe('estimates behind a branch', () => {
  it('counts a branch in full in the worst case, marked at most, and by its odds when likely', async () => {
    const { plan } = await compile(tieJudge({ tie: 1, else: 3 }));
    const worst = estimateRun(plan, DEFAULT_PRICES);
    const likely = estimateRun(plan, DEFAULT_PRICES, { weighBranches: true });
    const row = (e: typeof worst, id: string) => e.byNode.find((r) => r.node === id)!;
    expect(worst.calls).toBe(3);
    expect(row(worst, 'judge')).toMatchObject({ calls: 1, atMost: { odds: 0.25 } });
    expect(row(worst, 'explain').atMost).toEqual({ odds: 0.25 });
    expect(row(worst, 'asker').atMost).toBeUndefined();
    expect(likely.calls).toBe(1.5);
    expect(row(likely, 'judge').completionTokens).toBe(25);
    expect(formatEstimate(worst, likely)).toContain('judge (at most, 25% likely)');
  });

  it('takes each of N branches as 1 in N when the router gives no odds', async () => {
    const { plan } = await compile(tieJudge());
    const likely = estimateRun(plan, DEFAULT_PRICES, { weighBranches: true });
    expect(likely.byNode.find((r) => r.node === 'judge')?.atMost).toEqual({ odds: 0.5 });
    expect(likely.calls).toBe(2);
  });
});
