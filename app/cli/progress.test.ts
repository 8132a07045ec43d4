import { describe, expect, it } from 'vitest';
import { collapseCopies } from './progress.ts';

describe('the live display', () => {
  it('shows the copies of a replicated loop at one round on one line', () => {
    const rounds = Array.from({ length: 26 }, (_, i) => `artists#${i}/talk round 2 of 3`);
    expect(collapseCopies(['storm round 1 of 4', ...rounds])).toEqual([
      'storm round 1 of 4',
      'artists#0–25/talk round 2 of 3',
    ]);
  });

  it('keeps copies at different rounds apart and lists gaps in the copy numbers', () => {
    expect(
      collapseCopies([
        'artists#0/talk round 3 of 3',
        'artists#1/talk round 2 of 3',
        'artists#2/talk round 3 of 3',
        'artists#3/talk round 3 of 3',
        'artists#5/talk round 3 of 3',
        'artists#4/talk round 2 of 3',
      ]),
    ).toEqual(['artists#0,2–3,5/talk round 3 of 3', 'artists#1,4/talk round 2 of 3']);
  });

  it('leaves a lone copy and names without copies as they are', () => {
    expect(collapseCopies(['pair#7/storm round 1 of 2', 'judge@r2', 'judge@r2'])).toEqual([
      'pair#7/storm round 1 of 2',
      'judge@r2',
    ]);
  });
});
