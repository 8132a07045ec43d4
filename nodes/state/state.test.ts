import { describe, expect, it } from 'vitest';
import { edge, graph, input, node, output, problems, run } from '../../tests/support/graphs.ts';
import { ruleProblems } from './rules.ts';

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
