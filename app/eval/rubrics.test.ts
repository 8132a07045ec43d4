/**
 * Rubrics and the mean ratings an eval's table shows: the built-in ITCMA-S scales, a rubric of
 * one's own refused with the field that is wrong, scores checked against the range, and an item
 * rated by two people counting once.
 */
import { describe, expect, it } from 'vitest';
import { scaleRatings } from './ratings.ts';
import { parseRubric, RUBRICS, resolveRubric, scoreProblem } from './rubrics.ts';
import { meanWithInterval, meanWithTInterval } from './stats.ts';
import type { EvalRating } from './types.ts';

const itcma = RUBRICS.itcma!;
const noFiles = (path: string): string => {
  throw new Error(`ENOENT: no such file, open '${path}'`);
};

describe('rubrics', () => {
  it('has the five ITCMA-S scales, rated 1 to 7, each with a description', () => {
    expect(itcma.scales.map((s) => s.label)).toEqual([
      'Personification',
      'Consistency',
      'Logicality',
      'Exploration',
      'Proactiveness',
    ]);
    expect([itcma.min, itcma.max]).toEqual([1, 7]);
    for (const s of itcma.scales) expect(s.description.length).toBeGreaterThan(20);
  });

  it('reads a rubric file, and names what is wrong with a bad one', () => {
    const mine = {
      name: 'mine',
      min: 0,
      max: 4,
      scales: [{ id: 'tone', label: 'Tone', description: 'Polite?' }],
    };
    expect(resolveRubric('mine.json', () => JSON.stringify(mine))).toEqual(mine);
    expect(() => resolveRubric('bogus', noFiles)).toThrow(
      'no rubric "bogus" (built in: itcma; or a .json file of your own)',
    );
    expect(() => resolveRubric('gone.json', noFiles)).toThrow(
      /cannot read rubric gone\.json: ENOENT/,
    );
    expect(() => parseRubric({ ...mine, max: 0 }, 'mine.json')).toThrow(
      'mine.json: max: max must be above min',
    );
    expect(() =>
      parseRubric({ ...mine, scales: [{ id: 'Bad Id', label: 'x', description: 'y' }] }, 'f'),
    ).toThrow(/f: scales\.0\.id: a scale id is up to 40/);
    expect(() => parseRubric({ ...mine, key: 'x' }, 'f')).toThrow(/f: .*key/);
  });

  it('accepts whole scores in range on its own scales only', () => {
    expect(scoreProblem(itcma, { personification: 7, proactiveness: 1 })).toBeUndefined();
    expect(scoreProblem(itcma, { humour: 3 })).toBe(
      'no scale "humour" in rubric itcma (its scales: personification, consistency, logicality, exploration, proactiveness)',
    );
    expect(scoreProblem(itcma, { logicality: 8 })).toBe(
      'logicality: 8 is not a whole number from 1 to 7',
    );
    expect(scoreProblem(itcma, { logicality: 2.5 })).toMatch(/not a whole number/);
  });
});

describe('mean ratings', () => {
  const rating = (item: number, rater: string, scale: string, score: number): EvalRating => ({
    runId: `r${item}`,
    item,
    variant: 'full',
    rater,
    scale,
    score,
    ratedAt: 0,
  });

  it('counts an item once, at the mean of its raters, with a t interval from n = 2', () => {
    const ratings = [
      rating(0, 'ada', 'logicality', 6),
      rating(0, 'bob', 'logicality', 4),
      rating(1, 'ada', 'logicality', 7),
      rating(2, 'ada', 'exploration', 3),
    ];
    const [logic, explore, proactive] = scaleRatings(
      ['logicality', 'exploration', 'proactiveness'],
      ratings,
      itcma,
    );
    // Items 0 (5, the mean of 6 and 4) and 1 (7): mean 6, t(1) = 12.706, sd √2.
    expect(logic!.n).toBe(2);
    expect(logic!.mean).toBe(6);
    // The interval is kept inside the scale: [1, 7].
    expect(logic!.ci95).toEqual([1, 7]);
    expect(explore).toEqual({ scale: 'exploration', n: 1, mean: 3 });
    expect(proactive).toEqual({ scale: 'proactiveness', n: 0, mean: 0 });
  });

  it('never treats ratings of 1 as a proportion', () => {
    // Scores all 0 or 1 are accuracies to an eval's score (Wilson), but a rating of 1 is a score.
    expect(meanWithInterval([1, 1, 1]).ci95[0]).toBeLessThan(1);
    expect(meanWithTInterval([1, 1, 1], [1, 7])).toEqual({ mean: 1, ci95: [1, 1] });
    const wide = meanWithTInterval([2, 4, 6]);
    expect(wide.mean).toBe(4);
    expect(wide.ci95[0]).toBeCloseTo(4 - 4.303 * (2 / Math.sqrt(3)), 6);
  });
});
