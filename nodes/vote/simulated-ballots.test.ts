import { describe, expect, it } from 'vitest';
import {
  agent,
  edge,
  graph,
  input,
  node,
  output,
  run,
  talliesOf,
} from '../../tests/support/graphs.ts';

const STYLES = [
  'Impressionism',
  'Pointillism',
  'Art Nouveau',
  'Fauvism',
  'De Stijl',
  'Constructivism',
  'Surrealism',
  'Expressionism',
  'Abstract Expressionism',
  'Cubism',
  'Futurism',
  'Dada',
  'Minimalism',
  'Conceptual',
  'Postmodern',
  'Pure',
  'Painting',
  'Impressionist',
  'Realistic',
  'Naturalistic',
  'Dure Materialism',
  'Surrealist',
  'Abstract',
  'Candidian',
  'Dadas',
  'Subjectivism',
];
const ARTISTS = STYLES.map((s, i) => `${s} ${i < 15 ? 'Artist' : 'Photographer'}`);
const JOBS = Array.from({ length: 50 }, (_, i) => `critic number ${i + 1}`);

/**
 * NLSOM's Artist–Critic society (App. G): 26 artists propose, 50 critics each name the artist
 * whose proposal they prefer, and a plurality vote over the artists' names decides.
 */
function artistCritic(rule: 'plurality' | 'borda' | 'approval' = 'plurality') {
  return graph(
    [
      input('brief'),
      node('artists', 'group', { replicate: { items: ARTISTS, as: 'artist' } }),
      agent(
        'artist',
        'Propose, in one sentence, a picture of {{ brief }} in your style.',
        { role: 'You are a {{ artist }}.' },
        { parentId: 'artists' },
      ),
      node('critics', 'group', { replicate: { items: JOBS, as: 'job' } }),
      agent(
        'critic',
        'There is a record for different proposals from different artists: ' +
          '{% for p in proposals %}{{ artists[forloop.index0] }}: {{ p }} {% endfor %}' +
          'Please choose the impressive and beautiful proposal. (please directly answer the name of role)',
        {
          role: 'You are a {{ job }}.',
          slots: { proposals: 'list<text>', artists: 'list<text>' },
        },
        { parentId: 'critics' },
      ),
      input('names', { modality: 'list<text>' }),
      node('vote', 'vote', { rule, candidates: ARTISTS }),
      output('winner'),
    ],
    [
      edge('brief.value', 'artist.brief'),
      edge('artist.text', 'critic.proposals'),
      edge('names.value', 'critic.artists'),
      edge('critic.text', 'vote.ballots'),
      edge('vote.winner', 'winner.value'),
    ],
  );
}

describe('simulated ballots', () => {
  it('are all valid in an Artist–Critic vote: 50 critics over 26 artists', async () => {
    const { outputs, events, status } = await run(artistCritic(), {
      simulate: true,
      inputs: { brief: 'a lighthouse in a storm', names: ARTISTS },
    });
    expect(status).toBe('succeeded');
    const [vote] = talliesOf(events);
    expect(vote?.tally.totals).toEqual({ ballots: 50, valid: 50 });
    expect(ARTISTS).toContain(outputs.winner);
    // Every ballot still says it was made up.
    for (const ballot of vote!.tally.ballots)
      expect(String(ballot.value)).toMatch(/^\[simulated\] /);
  });

  it('rank every candidate for Borda and approve a few for approval voting', async () => {
    for (const rule of ['borda', 'approval'] as const) {
      const { events } = await run(artistCritic(rule), {
        simulate: true,
        inputs: { brief: 'a lighthouse', names: ARTISTS },
      });
      const [vote] = talliesOf(events);
      expect(vote?.tally.totals).toEqual({ ballots: 50, valid: 50 });
      const lengths = vote!.tally.ballots.map((b) => b.choices.length);
      if (rule === 'borda') expect(lengths.every((n) => n === 26)).toBe(true);
      else expect(lengths.every((n) => n >= 1 && n <= 3)).toBe(true);
    }
  });
});
