/**
 * The estimate of an agent offered library graphs as tools: a call costs one run of the graph
 * (its own calls, under the agent as `via tool NAME`, or `via tool NAME › INNER` for those made
 * through a graph tool of its own), likely once a turn, and in the worst case
 * as often as the engine lets it (the node's or the run's `maxToolCalls`), or, where nothing
 * bounds it, once a tool round, said so.
 */
import { describe, expect, it } from 'vitest';
import { estimateRun, formatEstimate, LIKELY_ANSWER_SHARE } from '../../app/costs/estimate.ts';
import { budgetShortfalls } from '../../app/costs/limits-check.ts';
import type { PriceTable } from '../../app/costs/prices.ts';
import type { GraphDocument, LibraryGraph, RunSettings } from '../../app/schema/document.ts';
import { agent, compile, edge, graph, input, node, output } from '../../tests/support/graphs.ts';

/** An agent of its own on a model of its own, asked a question: one model call a run. */
const ADVISOR: LibraryGraph = {
  description: 'Asks an advisor.',
  nodes: [
    input('question'),
    agent('advisor', 'Advise: {{ question }}', { model: 'inner', maxTokens: 100 }),
    output('advice'),
  ],
  edges: [edge('question.value', 'advisor.question'), edge('advisor.text', 'advice.value')],
};

/** Arithmetic without a model: it costs no call. */
const CALCULATOR: LibraryGraph = {
  nodes: [
    input('a', { modality: 'number' }),
    node('calc', 'transform', { template: '{{ a | times: 2 }}', slots: { a: 'number' } }),
    output('result'),
  ],
  edges: [edge('a.value', 'calc.a'), edge('calc.value', 'result.value')],
};

const PRICES: PriceTable = {
  'outer-model': { inputPerMillion: 1, outputPerMillion: 1 },
  'inner-model': { inputPerMillion: 10, outputPerMillion: 10 },
};

/** q → a (offered `tools`, at most 3 tool rounds) → answer */
function offered(
  tools: Array<Record<string, unknown>>,
  data: Record<string, unknown> = {},
  settings?: RunSettings,
): GraphDocument {
  return {
    ...graph(
      [
        input('q'),
        agent('a', '{{ q }}', { tools, maxToolRounds: 3, maxTokens: 200, ...data }),
        output('answer'),
      ],
      [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
      {
        models: {
          m: { provider: 'test', model: 'outer-model' },
          inner: { provider: 'test', model: 'inner-model' },
        },
        ...(settings ? { settings } : {}),
      },
    ),
    graphs: { advisor: ADVISOR, calculator: CALCULATOR },
  };
}

const rows = (e: ReturnType<typeof estimateRun>) =>
  e.byNode.map((r) => [r.phase ?? '', r.model, r.calls, r.retry ?? false]);

describe('the estimate of graph tools', () => {
  it("counts a graph tool's model calls, bounded in the worst case by the node's maxToolCalls", async () => {
    const plan = (await compile(offered([{ graph: 'advisor' }], { maxToolCalls: 5 }))).plan;
    const worst = estimateRun(plan, PRICES);
    expect(rows(worst)).toEqual([
      ['', 'outer-model', 1, false],
      ['tool round', 'outer-model', 1, false],
      ['up to 3 tool rounds', 'outer-model', 2, true],
      ['via tool advisor', 'inner-model', 1, false],
      ['via tool advisor, up to 5 calls', 'inner-model', 5, true],
    ]);
    // Its calls are the inner graph's: its model, its answer length, its price.
    const bounded = worst.byNode.at(-1)!;
    expect(bounded.completionTokens).toBe(5 * 100);
    expect(bounded.costUsd).toBeGreaterThan(0);
    expect(worst.calls).toBe(10);
    // Likely: a turn calls its one tool once and reads the result.
    expect(worst.firstAttempts.calls).toBe(3);
  });

  it("takes the run's maxToolCalls when it is the lower bound", async () => {
    const doc = offered(
      [{ graph: 'advisor' }],
      { maxToolCalls: 5 },
      { budget: { maxToolCalls: 2 } },
    );
    const worst = estimateRun((await compile(doc)).plan, PRICES);
    expect(rows(worst).at(-1)).toEqual(['via tool advisor, up to 2 calls', 'inner-model', 2, true]);
  });

  it('says so where nothing bounds the calls, and counts one a tool round', async () => {
    const plan = (await compile(offered([{ graph: 'advisor' }]))).plan;
    const worst = estimateRun(plan, PRICES);
    expect(rows(worst).at(-1)).toEqual([
      'via tool advisor, no bound on graph-tool calls: set maxToolCalls',
      'inner-model',
      3,
      true,
    ]);
    const likely = estimateRun(plan, PRICES, { answerShare: LIKELY_ANSWER_SHARE });
    expect(formatEstimate(worst, likely)).toContain(
      'a (via tool advisor, no bound on graph-tool calls: set maxToolCalls)  inner-model',
    );
  });

  it('weighs the tools of a turn as equally likely, and bounds the worst case on the costliest', async () => {
    const doc = offered([{ graph: 'calculator' }, { graph: 'advisor' }], { maxToolCalls: 4 });
    const worst = estimateRun((await compile(doc)).plan, PRICES);
    // The calculator calls no model: only the advisor's calls show, half of a likely call.
    expect(rows(worst).slice(3)).toEqual([
      ['via tool advisor', 'inner-model', 0.5, false],
      ['via tool advisor, up to 4 calls', 'inner-model', 4, true],
    ]);
  });

  it("counts a graph tool that offers a graph tool of its own, its calls and its tool's", async () => {
    const doc = offered([{ graph: 'desk' }], { maxToolCalls: 1 });
    doc.graphs = {
      ...doc.graphs,
      // A desk's clerk on the outer model, offered the advisor: 1 + 1 round + 1 advisor call likely.
      desk: {
        nodes: [
          input('question'),
          agent('clerk', '{{ question }}', { tools: [{ graph: 'advisor' }], maxToolCalls: 1 }),
          output('reply'),
        ],
        edges: [edge('question.value', 'clerk.question'), edge('clerk.text', 'reply.value')],
      },
    };
    const plan = (await compile(doc)).plan;
    const worst = estimateRun(plan, PRICES);
    // Likely, one call to the desk: the clerk's turn and tool round, and the advisor it calls,
    // named through the chain; in the worst case each tool at its own bound.
    expect(rows(worst).slice(3)).toEqual([
      ['via tool desk', 'outer-model', 2, false],
      ['via tool desk', 'outer-model', 7, true],
      ['via tool desk › advisor', 'inner-model', 1, false],
      ['via tool desk › advisor, up to 1 calls', 'inner-model', 1, true],
      ['via tool desk, up to 1 calls', 'outer-model', 9, true],
      ['via tool desk, up to 1 calls › advisor', 'inner-model', 1, true],
      ['via tool desk, up to 1 calls › advisor, up to 1 calls', 'inner-model', 1, true],
    ]);
    const likely = estimateRun(plan, PRICES, { answerShare: LIKELY_ANSWER_SHARE });
    expect(formatEstimate(worst, likely)).toMatch(
      /^a \(via tool desk › advisor\) +inner-model +1 /m,
    );
    expect(worst.firstAttempts.calls).toBe(2 + 3);
  });

  it("counts a graph tool's calls in the budget check", async () => {
    const doc = offered([{ graph: 'advisor' }], {}, { budget: { maxCalls: 2 } });
    const [shortfall] = budgetShortfalls((await compile(doc)).plan, PRICES);
    expect(shortfall).toMatchObject({ limit: 'maxCalls', value: 2, needed: 3 });
  });
});
