import { describe, expect, it } from 'vitest';
import { ruleProblems } from '../../app/node-sdk/rules.ts';
import { edge, graph, input, node, output, problems, run } from '../../tests/support/graphs.ts';
import { heavyStateDocument } from '../../tests/support/heavy-state.ts';

/** A state over rounds of a mindstorm: facts come in each round; the state goes round to round. */
function society(variables: unknown[], rounds = 3) {
  return graph(
    [
      input('facts', { modality: 'json' }),
      node('steps', 'mindstorm', { maxRounds: rounds }),
      node('mood', 'state', { variables, keys: ['AY'] }, { parentId: 'steps' }),
      output('state'),
    ],
    [
      edge('facts.value', 'mood.facts'),
      edge('mood.state', 'mood.previous', { previousRound: true }),
      edge('mood.state', 'state.value', { collect: 'all' }),
    ],
  );
}

const PAD = [
  {
    name: 'P',
    update: { '-': [{ tanh: { var: 'facts.desire' } }, { tanh: { var: 'facts.pain' } }] },
    min: -1,
    max: 1,
  },
  { name: 'count', initial: 10, update: { '+': [{ var: 'prev.count' }, 1] } },
  { name: 'twice', update: { '*': [{ var: 'now.count' }, 2] } },
  { name: 'round', update: { var: 'step' } },
];

describe('state node', () => {
  it('updates each key by its rules, round after round, reading prev, now, facts and step', async () => {
    const { outputs, status } = await run(society(PAD), {
      inputs: { facts: { AY: { desire: 1, pain: 0 }, SG: { desire: 0, pain: 2 } } },
    });
    expect(status).toBe('succeeded');
    const rounds = outputs.state as Array<Record<string, Record<string, number>>>;
    expect(rounds).toHaveLength(3);
    expect(rounds[0]!.AY!.P).toBeCloseTo(Math.tanh(1), 9);
    expect(rounds[0]!.SG!.P).toBeCloseTo(-Math.tanh(2), 9);
    expect(rounds.map((r) => r.AY!.count)).toEqual([11, 12, 13]);
    expect(rounds.map((r) => r.SG!.twice)).toEqual([22, 24, 26]);
    expect(rounds.map((r) => r.AY!.round)).toEqual([1, 2, 3]);
  });

  it('refuses unknown operators and code-calling ones, with the rule path', async () => {
    expect(ruleProblems({ method: ['abc', 'constructor'] })[0]!.message).toMatch(
      /unknown operator "method"/,
    );
    expect(ruleProblems({ '+': [1, { a: 1, b: 2 }] })[0]!.path).toEqual(['+', 1]);
    const found = await problems(society([{ name: 'x', update: { '+': [{ eval: '1' }] } }]));
    const line = found.map((p) => `${p.path} ${p.message}`).join('\n');
    expect(line).toMatch(/variables\[0\]\.update/);
    expect(line).toMatch(/unknown operator "eval"/);
  });

  it('fails the run naming the variable and key when a rule gives no number', async () => {
    const { status, error } = await run(
      society([{ name: 'x', update: { var: 'facts.word' } }], 1),
      {
        inputs: { facts: { AY: { word: 'hello' } } },
      },
    );
    expect(status).toBe('failed');
    expect(error).toMatch(/variable "x" of "AY" came out as "hello", not a number/);
  });
});

describe('a state node whose rules cost seconds', () => {
  it('computes a heavy update off the event loop, the same as a light one would', async () => {
    const doc = heavyStateDocument({ keys: 20, variables: 2 });
    const done = run(doc, { simulate: true });
    // About 80,000 steps: past what runs at once, so a timer set now fires in between.
    const first = await Promise.race([
      done.then(() => 'the run ended'),
      new Promise((resolve) => setTimeout(() => resolve('a timer fired'), 0)),
    ]);
    expect(first).toBe('a timer fired');
    const { outputs, status } = await done;
    expect(status).toBe('succeeded');
    const state = outputs.state as Record<string, Record<string, number>>;
    expect(Object.keys(state)).toHaveLength(20);
    // prev.v0 is 0 at first: v0 = 0, then v1 reads the same prev.
    expect(state.agent19).toEqual({ v0: 0, v1: 0 });
  });

  it('fails the node at settings.limits.computeMs, in one line', async () => {
    const started = performance.now();
    const { status, error } = await run(heavyStateDocument({ computeMs: 300 }), {
      simulate: true,
    });
    const ms = performance.now() - started;
    expect(status).toBe('failed');
    expect(error).toBe(
      'node "mood": its rules went past the 300 ms compute limit (settings.limits.computeMs)',
    );
    // Ten seconds of rules, stopped at the limit (the rest is compiling the document).
    expect(ms).toBeLessThan(3_000);
  });
});
