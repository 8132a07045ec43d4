import { describe, expect, it } from 'vitest';
import { outputText, runFailure } from './results.ts';

describe('a served result as text', () => {
  it('labels every output of a simulated run, text or not, once', () => {
    expect(outputText({ simulated: true }, 'yes')).toBe('[simulated] yes');
    expect(outputText({ simulated: true }, '[simulated] yes')).toBe('[simulated] yes');
    expect(outputText({ simulated: true }, { winner: 'yes' })).toBe('[simulated] {"winner":"yes"}');
    expect(outputText({ simulated: false }, { winner: 'yes' })).toBe('{"winner":"yes"}');
  });

  it('says how a run ended in one line, whichever face shows it', () => {
    expect(
      runFailure({ runId: 'r1', status: 'failed', error: 'node "a": down\n  at somewhere' }),
    ).toBe(`the society's run r1 failed: node "a": down`);
    expect(runFailure({ runId: 'r2', status: 'cancelled' })).toBe(
      `the society's run r2 was cancelled`,
    );
  });
});
