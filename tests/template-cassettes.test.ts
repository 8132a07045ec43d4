/**
 * Every shipped template runs from its cassette with no inputs given: the examples it carries
 * are what the cassette was recorded with (`npm run cassettes`), and a person's turns (a seat in
 * a kitchen) are in the cassette too.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Cassette } from '../app/providers/cassette.ts';
import { cassettePath, runTemplate, templateBases } from '../scripts/template-runs.ts';

describe('the shipped templates', () => {
  const bases = templateBases();

  it('each ship a cassette', () => {
    expect(bases.length).toBeGreaterThan(10);
    expect(bases.filter((base) => !existsSync(cassettePath(base)))).toEqual([]);
  });

  it.each(bases)('%s replays from its cassette with its example inputs', async (base) => {
    const cassette = await Cassette.load(cassettePath(base));
    const result = await runTemplate(base, cassette, 'replay');
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('succeeded');
    expect(Object.keys(result.outputs).length).toBeGreaterThan(0);
  });

  it("replays the seat's recorded turns in place of a person", async () => {
    const cassette = await Cassette.load(cassettePath('cuisineworld-human-seat'));
    const turns = Object.entries(cassette.answers());
    expect(turns.length).toBeGreaterThan(0);
    expect(turns[0]).toEqual(['agent1@t0', 'noop_agent1']);
  });
});
