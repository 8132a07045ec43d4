import { describe, expect, it } from 'vitest';
import { choiceLetter, firstNumber, normalize, rougeL, textScorer, tokenF1 } from './scorers.ts';
import { meanWithInterval, percentile, wilson } from './stats.ts';

const OPTIONS = ['toothpick', 'food', 'popsicle stick', 'cigarette'];
const score = (name: string, p: unknown, r: unknown, row = {}, tolerance?: number) =>
  textScorer(name, tolerance === undefined ? {} : { tolerance }).score(p, r, { row });

describe('text scorers', () => {
  it('exact compares after normalising case, punctuation and articles', () => {
    expect(normalize('The Eiffel Tower!')).toBe('eiffel tower');
    expect(score('exact', 'The Eiffel Tower.', 'eiffel tower')).toBe(1);
    expect(score('exact', 'Eiffel', 'eiffel tower')).toBe(0);
    // A structured answer is read by its answer field.
    expect(score('exact', { answer: 'Paris' }, 'paris')).toBe(1);
  });

  it('contains looks for the reference as whole words', () => {
    expect(score('contains', 'It is probably a cigarette.', 'cigarette')).toBe(1);
    expect(score('contains', 'cigarettes', 'cigarette')).toBe(0);
    expect(score('contains', 'anything', '')).toBe(0);
  });

  it('choice reads the option letter however the answer names it', () => {
    expect(choiceLetter('(D)', OPTIONS)).toBe('D');
    expect(choiceLetter('D. cigarette', OPTIONS)).toBe('D');
    expect(choiceLetter('The answer is d', OPTIONS)).toBe('D');
    expect(choiceLetter('Answer: (B)', OPTIONS)).toBe('B');
    // A vote's winner among "(d)" ballots.
    expect(choiceLetter('d', OPTIONS)).toBe('D');
    expect(choiceLetter('I would say a popsicle stick.', OPTIONS)).toBe('C');
    // "A toothpick" starts with an article, not the letter A.
    expect(choiceLetter('A toothpick, most likely', OPTIONS)).toBe('A');
    expect(choiceLetter('A cigarette, most likely', OPTIONS)).toBe('D');
    // Naming two options names none.
    expect(choiceLetter('food or a cigarette', OPTIONS)).toBeUndefined();
    // The reference may be an index (A-OKVQA's), a letter or the option's text.
    const row = { choices: OPTIONS };
    expect(score('choice', 'D', 3, row)).toBe(1);
    expect(score('choice', 'cigarette', 'D', row)).toBe(1);
    expect(score('choice', '(A)', 'cigarette', row)).toBe(0);
  });

  it('number takes the first number, within a tolerance', () => {
    expect(firstNumber('about 1,250 people')).toBe(1250);
    expect(firstNumber('-3.5 degrees')).toBe(-3.5);
    expect(firstNumber('none')).toBeUndefined();
    expect(score('number', 'The answer is 24.', '24')).toBe(1);
    expect(score('number', 'The answer is 25.', '24')).toBe(0);
    expect(score('number', '24.4', 24, {}, 0.5)).toBe(1);
  });

  it('f1 and rougeL measure overlap', () => {
    expect(tokenF1('the cat sat on the mat', 'a cat sat on a mat')).toBe(1);
    expect(tokenF1('cat sat', 'cat sat on mat')).toBeCloseTo((2 * 1 * 0.5) / 1.5, 10);
    expect(tokenF1('dog', 'cat')).toBe(0);
    // Order matters to ROUGE-L and not to F1.
    expect(rougeL('mat on sat cat', 'cat sat on mat')).toBeCloseTo(0.25, 10);
    expect(tokenF1('mat on sat cat', 'cat sat on mat')).toBe(1);
  });

  it('cos scores an episode by its completed orders', () => {
    expect(score('cos', { completed: 3, failed: 1, open: 0 }, undefined)).toBe(0.75);
    expect(score('cos', { completed: 0, failed: 0, open: 0 }, undefined)).toBe(0);
  });

  it('names the scorers when one does not exist', () => {
    expect(() => textScorer('bleu')).toThrow(/no scorer "bleu" \(scorers: exact, choice/);
  });
});

describe('intervals', () => {
  it('uses Wilson for accuracies and t for other scores', () => {
    const [lo, hi] = wilson(0.7, 10);
    expect(lo).toBeCloseTo(0.3968, 3);
    expect(hi).toBeCloseTo(0.8922, 3);
    // All right still leaves doubt at n = 5.
    expect(meanWithInterval([1, 1, 1, 1, 1]).ci95[0]).toBeCloseTo(0.5655, 3);
    expect(meanWithInterval([1, 1, 1, 1, 1]).ci95[1]).toBe(1);
    const t = meanWithInterval([0.5, 0.7, 0.9]);
    expect(t.mean).toBeCloseTo(0.7, 10);
    // s = 0.2, t(2) = 4.303: 0.7 ± 4.303 · 0.2 / √3.
    expect(t.mean - t.ci95[0]).toBeCloseTo((4.303 * 0.2) / Math.sqrt(3), 6);
    // Fractions keep their interval inside [0, 1]; other numbers do not.
    expect(t.ci95[1]).toBe(1);
    const wide = meanWithInterval([5, 7, 9]);
    expect(wide.ci95[1] - wide.mean).toBeCloseTo((4.303 * 2) / Math.sqrt(3), 6);
    expect(meanWithInterval([])).toEqual({ mean: 0, ci95: [0, 0] });
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(
      percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100], 0.95),
    ).toBe(19);
    expect(percentile([], 0.5)).toBe(0);
  });
});
