import { describe, expect, it } from 'vitest';
import type { Ballot, TallyOptions } from './tally.ts';
import { tallyVotes } from './tally.ts';

const base: TallyOptions = { rule: 'plurality', tieBreak: 'first', seed: 1 };

/** Ballots from [voter, value] pairs. */
function cast(...pairs: Array<[string, unknown]>): Ballot[] {
  return pairs.map(([voter, value]) => ({ voter, value }));
}

/** The candidates each ballot was read as, by voter. */
function readAs(ballots: Ballot[], options: Partial<TallyOptions>): Record<string, string[]> {
  const tally = tallyVotes(ballots, { ...base, ...options });
  return Object.fromEntries(tally.ballots.map((b) => [b.voter, b.choices]));
}

const OPTIONS = ['a red apple', 'a green pear', 'a yellow banana', 'a purple plum'];

describe('plurality', () => {
  it('picks the candidate with the most first choices and reports everything', () => {
    const tally = tallyVotes(
      cast(['v1', 'Monet'], ['v2', 'Dali'], ['v3', 'monet'], ['v4', 'Kahlo']),
      {
        ...base,
        candidates: ['Dali', 'Monet', 'Kahlo'],
      },
    );
    expect(tally.rule).toBe('plurality');
    expect(tally.candidates).toEqual(['Dali', 'Monet', 'Kahlo']);
    expect(tally.counts).toEqual({ Dali: 1, Monet: 2, Kahlo: 1 });
    expect(tally.ranking).toEqual(['Monet', 'Dali', 'Kahlo']);
    expect(tally.winner).toBe('Monet');
    expect(tally.tied).toEqual([]);
    expect(tally.tieBreak).toBeUndefined();
    expect(tally.majority).toBeUndefined();
    expect(tally.totals).toEqual({ ballots: 4, valid: 4 });
    expect(tally.ballots[2]).toEqual({
      voter: 'v3',
      value: 'monet',
      choices: ['Monet'],
      valid: true,
    });
    expect(tally.reason).toContain('"Monet" leads with 2 votes');
  });

  it('derives candidates from ballots in first-seen order, keeping the first spelling', () => {
    const tally = tallyVotes(
      cast(['a', '  Paris. '], ['b', 'The answer is paris'], ['c', '"London"'], ['d', 'PARIS']),
      base,
    );
    expect(tally.candidates).toEqual(['Paris', 'London']);
    expect(tally.counts).toEqual({ Paris: 3, London: 1 });
    expect(tally.winner).toBe('Paris');
  });

  it('keeps a quotation inside a derived candidate whole, closing quote and stop included', () => {
    const choice = 'the bolder plan needs a small trial, given "Propose a slogan."';
    const tally = tallyVotes(cast(['a', `I think ${choice}`], ['b', ` ${choice}`]), base);
    expect(tally.winner).toBe(choice);
    expect(tally.counts).toEqual({ [choice]: 2 });
  });

  it('uses the first readable entry of an array ballot', () => {
    const tally = tallyVotes(cast(['v', ['nonsense', 'Kahlo', 'Dali']]), {
      ...base,
      candidates: ['Dali', 'Kahlo'],
    });
    expect(tally.ballots[0]).toMatchObject({ choices: ['Kahlo'], unmatched: ['nonsense'] });
    expect(tally.counts).toEqual({ Dali: 0, Kahlo: 1 });
  });

  it('reads a text ranking as its first choice when the whole text is not a candidate', () => {
    expect(readAs(cast(['v', 'b > a > c']), { candidates: ['x', 'y', 'z'] })).toEqual({
      v: ['y'],
    });
  });

  it('has no winner when no ballot is valid, and says why', () => {
    const tally = tallyVotes(cast(['v1', 'pass'], ['v2', '']), {
      ...base,
      candidates: ['A1', 'B2'],
    });
    expect(tally.winner).toBeNull();
    expect(tally.tied).toEqual([]);
    expect(tally.totals).toEqual({ ballots: 2, valid: 0 });
    expect(tally.counts).toEqual({ A1: 0, B2: 0 });
    expect(tally.reason).toMatch(/no valid ballots/);
  });

  it('has no winner when nobody voted', () => {
    const tally = tallyVotes([], base);
    expect(tally).toMatchObject({ winner: null, candidates: [], reason: 'no ballots were cast' });
  });

  it('is pure: inputs untouched and repeat calls identical', () => {
    const ballots = cast(['v1', ['B', 'A']], ['v2', 'A'], ['v3', 'b']);
    const candidates = ['A', 'B'];
    const snapshot = structuredClone({ ballots, candidates });
    const options: TallyOptions = { ...base, tieBreak: 'random', seed: 'x', candidates };
    const first = tallyVotes(ballots, options);
    expect(tallyVotes(ballots, options)).toEqual(first);
    expect({ ballots, candidates }).toEqual(snapshot);
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
  });

  it('rejects unknown rules', () => {
    expect(() => tallyVotes([], { ...base, rule: 'range' as never })).toThrow(TypeError);
    expect(() => tallyVotes([], { ...base, tieBreak: 'coin' as never })).toThrow(TypeError);
  });

  it('handles the NLSOM Artist-Critic society: 50 critics over 26 artist roles', () => {
    const artists = [
      'Vincent van Gogh',
      'Claude Monet',
      'Pablo Picasso',
      'Frida Kahlo',
      'Salvador Dali',
      'Rembrandt',
      'Johannes Vermeer',
      'Gustav Klimt',
      'Edvard Munch',
      'Henri Matisse',
      'Georgia O Keeffe',
      'Jackson Pollock',
      'Andy Warhol',
      'Hokusai',
      'Leonardo da Vinci',
      'Michelangelo',
      'Raphael',
      'Caravaggio',
      'Paul Cezanne',
      'Wassily Kandinsky',
      'Joan Miro',
      'Rene Magritte',
      'Edward Hopper',
      'Mark Rothko',
      'Yayoi Kusama',
      'Jean-Michel Basquiat',
    ];
    expect(artists).toHaveLength(26);
    // Kahlo 12, Hokusai 9, Monet 8, then the rest spread thin; varied phrasing as critics write.
    const plan: Array<[string, number]> = [
      ['Frida Kahlo', 12],
      ['Hokusai', 9],
      ['Claude Monet', 8],
      ['Mark Rothko', 5],
      ['Yayoi Kusama', 4],
      ['Gustav Klimt', 3],
      ['Rene Magritte', 3],
      ['Edward Hopper', 2],
      ['Joan Miro', 1],
    ];
    const phrasings = [
      (a: string) => a,
      (a: string) => `I vote for ${a}.`,
      (a: string) => `**${a.toUpperCase()}**`,
      (a: string) => `After weighing all proposals, my vote goes to ${a}'s artwork.`,
      (a: string) => `"${a}"`,
    ];
    const ballots: Ballot[] = [];
    for (const [artist, votes] of plan) {
      for (let i = 0; i < votes; i++) {
        const phrase = phrasings[ballots.length % phrasings.length]!;
        ballots.push({ voter: `critic#${ballots.length + 1}`, value: phrase(artist) });
      }
    }
    ballots.push({ voter: 'critic#48', value: 'Gustav Klimt, without a doubt' });
    ballots.push({ voter: 'critic#49', value: '(n)' });
    ballots.push({ voter: 'critic#50', value: 'None of these are art.' });
    expect(ballots).toHaveLength(50);

    const tally = tallyVotes(ballots, { ...base, candidates: artists });
    expect(tally.totals).toEqual({ ballots: 50, valid: 49 });
    expect(tally.winner).toBe('Frida Kahlo');
    expect(tally.counts['Frida Kahlo']).toBe(12);
    expect(tally.counts.Hokusai).toBe(10); // 9 + "(n)", the 14th role
    expect(tally.counts['Gustav Klimt']).toBe(4); // 3 + "Gustav Klimt, without a doubt"
    expect(tally.ranking.slice(0, 3)).toEqual(['Frida Kahlo', 'Hokusai', 'Claude Monet']);
    expect(Object.values(tally.counts).reduce((a, b) => a + b, 0)).toBe(49);
    expect(tally.ballots[49]).toMatchObject({ valid: false, choices: [] });
    expect(tally.ballots[49]!.reason).toContain('None of these are art');
  });
});

describe('ballot matching', () => {
  const candidates = OPTIONS;

  it('maps option letters in their usual shapes to the n-th candidate', () => {
    const read = readAs(
      cast(
        ['paren', '(b)'],
        ['close', 'c)'],
        ['dot', 'd.'],
        ['bare', 'A'],
        ['colon', 'B: a green pear'],
        ['withText', '(c) a yellow banana, because it is ripe'],
        ['chatter', 'The answer is (d).'],
        ['reasoning', 'Looking at the colours, the fruit is green. So the final answer: (B)'],
        ['option', 'Option c'],
        ['fullwidth', '（ａ）'],
      ),
      { candidates },
    );
    expect(read).toEqual({
      paren: ['a green pear'],
      close: ['a yellow banana'],
      dot: ['a purple plum'],
      bare: ['a red apple'],
      colon: ['a green pear'],
      withText: ['a yellow banana'],
      chatter: ['a purple plum'],
      reasoning: ['a green pear'],
      option: ['a yellow banana'],
      fullwidth: ['a red apple'],
    });
  });

  it('prefers an exact candidate over an option letter', () => {
    // "a" names the second candidate exactly, though as a letter it would mean the first.
    expect(readAs(cast(['v', 'a'], ['w', '(c)']), { candidates: ['x-ray', 'a', 'bravo'] })).toEqual(
      {
        v: ['a'],
        w: ['bravo'],
      },
    );
  });

  it('ignores letters beyond the candidate list', () => {
    const tally = tallyVotes(cast(['v', '(e)']), { ...base, candidates });
    expect(tally.ballots[0]).toMatchObject({ valid: false, choices: [] });
  });

  it('matches "(a)".."(d)" candidates from letters and chatter', () => {
    const read = readAs(
      cast(['v1', 'a'], ['v2', '(B)'], ['v3', 'The answer is c.'], ['v4', "I think it's (d)"]),
      { candidates: ['(a)', '(b)', '(c)', '(d)'] },
    );
    expect(read).toEqual({ v1: ['(a)'], v2: ['(b)'], v3: ['(c)'], v4: ['(d)'] });
  });

  it('ignores case, surrounding punctuation, quotes, markdown and chatter', () => {
    const read = readAs(
      cast(
        ['case', 'PABLO PICASSO'],
        ['quotes', '“Pablo Picasso”'],
        ['punct', '...Pablo Picasso!!!'],
        ['markdown', '**`Salvador Dali`**'],
        ['chatter', 'My vote: Salvador Dali'],
        ['think', '<think>Picasso is overrated</think> Salvador Dali'],
        ['bracketed', '[Pablo Picasso]'],
      ),
      { candidates: ['Pablo Picasso', 'Salvador Dali'] },
    );
    expect(read).toEqual({
      case: ['Pablo Picasso'],
      quotes: ['Pablo Picasso'],
      punct: ['Pablo Picasso'],
      markdown: ['Salvador Dali'],
      chatter: ['Salvador Dali'],
      think: ['Salvador Dali'],
      bracketed: ['Pablo Picasso'],
    });
  });

  it('finds a candidate named as a whole phrase, earliest first', () => {
    const read = readAs(
      cast(
        ['one', 'Clearly Monet, his light is unmatched'],
        ['two', 'Dali beats Monet here'],
        ['word', 'Dalinian nonsense'],
      ),
      { candidates: ['Monet', 'Dali'] },
    );
    expect(read).toEqual({ one: ['Monet'], two: ['Dali'], word: [] });
  });

  it('reports invalid ballots with a reason and keeps their raw value', () => {
    const weird = { pick: 'Monet' };
    const tally = tallyVotes(cast(['v1', 'abstain'], ['v2', weird], ['v3', '   '], ['v4', null]), {
      ...base,
      candidates: ['Monet', 'Dali'],
    });
    expect(tally.totals).toEqual({ ballots: 4, valid: 0 });
    expect(tally.ballots).toEqual([
      {
        voter: 'v1',
        value: 'abstain',
        choices: [],
        valid: false,
        reason: 'no candidate matched "abstain"',
      },
      {
        voter: 'v2',
        value: weird,
        choices: [],
        valid: false,
        reason: 'unreadable ballot value (object)',
      },
      { voter: 'v3', value: '   ', choices: [], valid: false, reason: 'empty ballot' },
      {
        voter: 'v4',
        value: null,
        choices: [],
        valid: false,
        reason: 'unreadable ballot value (null)',
      },
    ]);
  });

  it('keeps separator characters inside a candidate that is named exactly', () => {
    const tally = tallyVotes(cast(['v', 'Smith, John'], ['w', 'Doe, Jane; Smith, John']), {
      ...base,
      rule: 'approval',
      candidates: ['Smith, John', 'Doe, Jane'],
    });
    expect(tally.ballots.map((b) => b.choices)).toEqual([
      ['Smith, John'],
      ['Doe, Jane', 'Smith, John'],
    ]);
  });
});

describe('majority', () => {
  const candidates = ['A1', 'B2', 'C3'];
  const options: TallyOptions = { ...base, rule: 'majority', candidates };

  it('elects a candidate with more than half of the valid ballots', () => {
    const tally = tallyVotes(cast(['1', 'A1'], ['2', 'A1'], ['3', 'B2'], ['4', 'junk']), options);
    expect(tally.majority).toEqual({ needed: 2, reached: true, fallback: null });
    expect(tally.winner).toBe('A1');
    expect(tally.reason).toContain('won a majority');
  });

  it('needs strictly more than half: 2 of 4 is not enough', () => {
    const ballots = cast(['1', 'A1'], ['2', 'A1'], ['3', 'B2'], ['4', 'C3']);
    const tally = tallyVotes(ballots, options);
    expect(tally.majority).toEqual({ needed: 3, reached: false, fallback: 'plurality' });
    expect(tally.winner).toBe('A1');
    expect(tally.reason).toContain('plurality fallback');
  });

  it('falls back to plurality with a tie-break when the leaders tie', () => {
    const ballots = cast(['1', 'B2'], ['2', 'C3'], ['3', 'C3'], ['4', 'B2'], ['5', 'A1']);
    const tally = tallyVotes(ballots, options);
    expect(tally.majority).toEqual({ needed: 3, reached: false, fallback: 'plurality' });
    expect(tally.tied).toEqual(['B2', 'C3']);
    expect(tally.winner).toBe('B2');
    expect(tally.tieBreak).toMatchObject({ rule: 'first', chosen: 'B2' });
  });

  it('elects nobody under noMajority "none"', () => {
    const ballots = cast(['1', 'A1'], ['2', 'A1'], ['3', 'B2'], ['4', 'C3']);
    const tally = tallyVotes(ballots, { ...options, noMajority: 'none' });
    expect(tally.majority).toEqual({ needed: 3, reached: false, fallback: 'none' });
    expect(tally.winner).toBeNull();
    expect(tally.tieBreak).toBeUndefined();
    expect(tally.ranking[0]).toBe('A1');
    expect(tally.reason).toMatch(/no majority.*no winner/);
  });

  it('reports the majority test even with no valid ballots', () => {
    const tally = tallyVotes(cast(['1', '?']), options);
    expect(tally.majority).toEqual({ needed: 1, reached: false, fallback: 'plurality' });
    expect(tally.winner).toBeNull();
  });
});

describe('borda', () => {
  const candidates = ['Monet', 'Dali', 'Kahlo'];
  const options: TallyOptions = { ...base, rule: 'borda', candidates };

  it('gives n-1, n-2, ... points and 0 to unranked candidates', () => {
    const ballots = cast(
      ['1', ['Kahlo', 'Monet', 'Dali']],
      ['2', ['Dali', 'Kahlo']],
      ['3', ['Monet']],
    );
    const tally = tallyVotes(ballots, options);
    expect(tally.counts).toEqual({ Monet: 1 + 2, Dali: 0 + 2, Kahlo: 2 + 1 });
    expect(tally.ranking).toEqual(['Monet', 'Kahlo', 'Dali']);
    expect(tally.tied).toEqual(['Monet', 'Kahlo']);
    expect(tally.winner).toBe('Monet');
  });

  it('parses rankings from text with ">", commas, lines, numbering and letters', () => {
    const read = readAs(
      cast(
        ['arrows', 'Kahlo > monet > DALI'],
        ['commas', 'Dali, Kahlo, Monet'],
        ['lines', 'My ranking:\n1. Kahlo\n2. Dali\n3. Monet'],
        ['letters', '(c) > (a)'],
        ['chatter', 'My ranking: Monet > Kahlo'],
        ['dupes', 'Dali > Dali > Monet > Rubens'],
      ),
      { ...options },
    );
    expect(read).toEqual({
      arrows: ['Kahlo', 'Monet', 'Dali'],
      commas: ['Dali', 'Kahlo', 'Monet'],
      lines: ['Kahlo', 'Dali', 'Monet'],
      letters: ['Kahlo', 'Monet'],
      chatter: ['Monet', 'Kahlo'],
      dupes: ['Dali', 'Monet'],
    });
  });

  it('notes unmatched entries and counts duplicates once, at their best rank', () => {
    const tally = tallyVotes(cast(['v', 'Dali > Dali > Monet > Rubens']), options);
    expect(tally.ballots[0]).toMatchObject({ valid: true, unmatched: ['Rubens'] });
    expect(tally.counts).toEqual({ Monet: 1, Dali: 2, Kahlo: 0 });
  });

  it('derives candidates from rankings when no list is given', () => {
    const tally = tallyVotes(cast(['1', 'x > y > z'], ['2', ['Z', 'y']]), {
      ...base,
      rule: 'borda',
    });
    expect(tally.candidates).toEqual(['x', 'y', 'z']);
    expect(tally.counts).toEqual({ x: 2, y: 1 + 1, z: 0 + 2 });
    expect(tally.tied).toEqual(['x', 'y', 'z']);
  });
});

describe('approval', () => {
  const candidates = ['Monet', 'Dali', 'Kahlo'];
  const options: TallyOptions = { ...base, rule: 'approval', candidates };

  it('gives each approved candidate one point, duplicates counted once', () => {
    const ballots = cast(
      ['1', ['Monet', 'Kahlo', 'monet']],
      ['2', 'Kahlo'],
      ['3', 'Dali, Kahlo'],
      ['4', 'Monet\nDali\nDali'],
    );
    const tally = tallyVotes(ballots, options);
    expect(tally.ballots.map((b) => b.choices)).toEqual([
      ['Monet', 'Kahlo'],
      ['Kahlo'],
      ['Dali', 'Kahlo'],
      ['Monet', 'Dali'],
    ]);
    expect(tally.counts).toEqual({ Monet: 2, Dali: 2, Kahlo: 3 });
    expect(tally.winner).toBe('Kahlo');
  });

  it('reads "and"-joined sets, letters and chatter', () => {
    const read = readAs(
      cast(
        ['and', 'Monet and Kahlo'],
        ['letters', 'I approve (a) & (c)'],
        ['semi', 'b; c'],
        ['prose', 'I approve of Dali'],
      ),
      options,
    );
    expect(read).toEqual({
      and: ['Monet', 'Kahlo'],
      letters: ['Monet', 'Kahlo'],
      semi: ['Dali', 'Kahlo'],
      prose: ['Dali'],
    });
  });

  it('marks an empty approval set invalid', () => {
    const tally = tallyVotes(cast(['1', []], ['2', ',,\n']), options);
    expect(tally.ballots.map((b) => [b.valid, b.reason])).toEqual([
      [false, 'empty ballot'],
      [false, 'empty ballot'],
    ]);
  });

  it('derives candidates from approved sets when no list is given', () => {
    const tally = tallyVotes(cast(['1', 'red, blue'], ['2', ['Blue', 'green']]), {
      ...base,
      rule: 'approval',
    });
    expect(tally.candidates).toEqual(['red', 'blue', 'green']);
    expect(tally.counts).toEqual({ red: 1, blue: 2, green: 1 });
    expect(tally.winner).toBe('blue');
  });
});

describe('tie-breaks', () => {
  const candidates = ['North', 'East', 'South', 'West'];
  // North and South tie at 2; East has 1.
  const ballots = cast(
    ['v1', 'South'],
    ['v2', 'North'],
    ['v3', 'East'],
    ['v4', 'South'],
    ['v5', 'North'],
  );

  it('"first" takes the earliest tied candidate in candidate order', () => {
    const tally = tallyVotes(ballots, { ...base, candidates });
    expect(tally.tied).toEqual(['North', 'South']);
    expect(tally.ranking).toEqual(['North', 'South', 'East', 'West']);
    expect(tally.winner).toBe('North');
    expect(tally.tieBreak).toEqual({
      rule: 'first',
      chosen: 'North',
      reason: '"North" comes first in candidate order',
    });
  });

  it('"random" is deterministic for a seed and picks only among the tied', () => {
    const winners = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const options: TallyOptions = { ...base, candidates, tieBreak: 'random', seed };
      const a = tallyVotes(ballots, options);
      const b = tallyVotes(ballots, { ...options, seed: String(seed) });
      expect(b.winner).toBe(a.winner);
      expect(a.tieBreak?.rule).toBe('random');
      expect(a.tieBreak?.chosen).toBe(a.winner);
      expect(a.tied).toContain(a.winner);
      winners.add(a.winner!);
    }
    // Different seeds can give different winners.
    expect([...winners].sort()).toEqual(['North', 'South']);
  });

  it('"random" spreads picks over a larger tie', () => {
    const four = cast(['1', 'North'], ['2', 'East'], ['3', 'South'], ['4', 'West']);
    const picks = new Map<string, number>();
    for (let seed = 0; seed < 400; seed++) {
      const winner = tallyVotes(four, { ...base, candidates, tieBreak: 'random', seed: `s${seed}` })
        .winner!;
      picks.set(winner, (picks.get(winner) ?? 0) + 1);
    }
    expect(picks.size).toBe(4);
    for (const n of picks.values()) expect(n).toBeGreaterThan(50);
  });

  it('"chair" takes the tied candidate the chair voted for', () => {
    const tally = tallyVotes(ballots, { ...base, candidates, tieBreak: 'chair', chair: 'v4' });
    expect(tally.winner).toBe('South');
    expect(tally.tieBreak).toEqual({
      rule: 'chair',
      chosen: 'South',
      reason: 'chair "v4" voted for "South"',
    });
  });

  it('"chair" uses the highest-ranked tied candidate of a Borda chair', () => {
    const borda = cast(
      ['1', 'North > East'],
      ['2', 'East > North'],
      ['3', 'North > East'],
      ['chair', 'South > East > North'],
    );
    const options: TallyOptions = {
      ...base,
      rule: 'borda',
      candidates: ['North', 'East', 'South'],
    };
    const first = tallyVotes(borda, options);
    expect(first.counts).toEqual({ North: 5, East: 5, South: 2 });
    expect(first.tied).toEqual(['North', 'East']);
    expect(first.winner).toBe('North');

    // The chair's favourite (South) is not tied; East is its highest-ranked tied candidate.
    const chaired = tallyVotes(borda, { ...options, tieBreak: 'chair', chair: 'chair' });
    expect(chaired.winner).toBe('East');
    expect(chaired.tieBreak).toEqual({
      rule: 'chair',
      chosen: 'East',
      reason: 'chair "chair" ranked "East" highest among the tied',
    });
  });

  it('"chair" falls back to "first" when the chair voted outside the tie', () => {
    const tally = tallyVotes(ballots, { ...base, candidates, tieBreak: 'chair', chair: 'v3' });
    expect(tally.winner).toBe('North');
    expect(tally.tieBreak).toEqual({
      rule: 'chair',
      chosen: 'North',
      reason:
        'chair "v3" voted for none of the tied candidates; fell back to "first": "North" comes first in candidate order',
    });
  });

  it('"chair" falls back when there is no chair, no ballot or an invalid one', () => {
    const reasonFor = (chair: string | undefined, extra: Ballot[] = []) =>
      tallyVotes([...ballots, ...extra], { ...base, candidates, tieBreak: 'chair', chair }).tieBreak
        ?.reason;
    expect(reasonFor(undefined)).toMatch(/^no chair was set; fell back to "first"/);
    expect(reasonFor('nobody')).toMatch(/^chair "nobody" cast no ballot; fell back/);
    expect(reasonFor('c', cast(['c', 'gibberish']))).toMatch(/^chair "c" cast no valid ballot/);
  });
});
