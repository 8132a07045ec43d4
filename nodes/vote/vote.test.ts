import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import {
  agent,
  edge,
  graph,
  input,
  node,
  output,
  problems,
  run,
  talliesOf,
} from '../../tests/support/graphs.ts';

const VOTERS = ['v1', 'v2', 'v3', 'v4', 'v5'];

/** Five agents answer a question; a vote node counts their answers. */
function election(vote: Record<string, unknown> = {}, seed: number | string = 0) {
  return graph(
    [
      input('q'),
      ...VOTERS.map((id) => agent(id, `${id} votes on {{ q }}`)),
      node('vote', 'vote', vote),
      output('winner'),
      output('tally'),
    ],
    [
      ...VOTERS.map((id) => edge('q.value', `${id}.q`)),
      ...VOTERS.map((id) => edge(`${id}.text`, 'vote.ballots')),
      edge('vote.winner', 'winner.value'),
      edge('vote.tally', 'tally.value'),
    ],
    { settings: { seed } },
  );
}

/** Each voter answers what `ballots` says for it. */
const voting = (ballots: Record<string, string>) =>
  new FakeProvider((call) => ballots[call.user.split(' ')[0]!]!);

describe('vote node', () => {
  it('gives the plurality winner and a tally with every ballot and voter', async () => {
    const fake = voting({ v1: 'Monet', v2: 'Picasso', v3: 'monet', v4: 'Dali', v5: 'Monet.' });
    const { outputs, events } = await run(election(), {
      providerFor: fake.providerFor,
      inputs: { q: 'best painter' },
    });
    expect(outputs.winner).toBe('Monet');
    const tally = outputs.tally as {
      counts: Record<string, number>;
      ballots: Array<{ voter: string; value: unknown; choices: string[] }>;
    };
    expect(tally.counts).toEqual({ Monet: 3, Picasso: 1, Dali: 1 });
    expect(tally.ballots.map((b) => [b.voter, b.value, b.choices])).toEqual([
      ['v1', 'Monet', ['Monet']],
      ['v2', 'Picasso', ['Picasso']],
      ['v3', 'monet', ['Monet']],
      ['v4', 'Dali', ['Dali']],
      ['v5', 'Monet.', ['Monet']],
    ]);
    const [vote] = talliesOf(events);
    expect(vote).toMatchObject({ node: 'vote', tally: { winner: 'Monet' } });
  });

  it('reads option letters against a fixed candidate list', async () => {
    const fake = voting({ v1: '(b)', v2: 'I pick b.', v3: 'The answer is (a)', v4: 'b', v5: 'c' });
    const { outputs } = await run(election({ candidates: ['red', 'blue', 'green'] }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(outputs.winner).toBe('blue');
  });

  // v1 and v3 say yes, v2 and v4 say no, v5 abstains: a tie between yes and no.
  const tied = { v1: 'yes', v2: 'no', v3: 'yes', v4: 'no', v5: '' };

  it('breaks a tie by candidate order with tieBreak "first"', async () => {
    const { outputs } = await run(election({ tieBreak: 'first' }), {
      providerFor: voting(tied).providerFor,
      inputs: { q: '?' },
    });
    expect(outputs.winner).toBe('yes');
    expect(outputs.tally).toMatchObject({ tied: ['yes', 'no'], tieBreak: { rule: 'first' } });
  });

  it("breaks a tie with the chair's ballot", async () => {
    const { outputs } = await run(election({ tieBreak: 'chair', chair: 'v4' }), {
      providerFor: voting(tied).providerFor,
      inputs: { q: '?' },
    });
    expect(outputs.winner).toBe('no');
    expect(outputs.tally).toMatchObject({ tieBreak: { rule: 'chair', chosen: 'no' } });
  });

  it('breaks a tie at random, the same way for the same seed', async () => {
    const winner = async (seed: number) =>
      (
        await run(election({ tieBreak: 'random' }, seed), {
          providerFor: voting(tied).providerFor,
          inputs: { q: '?' },
        })
      ).outputs.winner;
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
    const first = await Promise.all(seeds.map(winner));
    const again = await Promise.all(seeds.map(winner));
    expect(again).toEqual(first);
    for (const w of first) expect(['yes', 'no']).toContain(w);
    // A seeded draw, not a constant: some seeds pick each side.
    expect(new Set(first)).toEqual(new Set(['yes', 'no']));
  });

  it('needs a chair for the chair tie-break', async () => {
    expect(await problems(election({ tieBreak: 'chair' }))).toContainEqual({
      path: 'nodes[6].data.chair',
      node: 'vote',
      message: 'tie-break "chair" needs a chair (a voter id)',
    });
  });
});
