/**
 * NLSOM's captioning template reports its score on the paper's scale (×100, one decimal, as Sec.
 * 2.2 prints NLSOM 20.6) beside the 0–1 similarity, and its rounds are a parameter.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

const db = join(mkdtempSync(join(tmpdir(), 'society-captioning-')), 'runs.db');
const TEMPLATE = 'templates/nlsom-captioning.society.json';

describe('NLSOM captioning on the paper scale', () => {
  it('gives paperScore = score ×100 to one decimal, and runs 3 + 4R + 2 model calls at --set rounds', async () => {
    for (const rounds of [1, 2]) {
      const result = await societyHere([
        ...['run', TEMPLATE, '--simulate', '--set', `rounds=${rounds}`],
        ...['--json', '-q', '--db', db],
      ]);
      expect(result.code, result.stderr).toBe(0);
      const json = JSON.parse(result.stdout);
      const { score, paperScore } = json.outputs;
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
      expect(paperScore).toBe(Math.round(score * 1000) / 10);
      expect(json.usage).toMatchObject({ calls: 3 + 4 * rounds + 2, expertCalls: 3 });
      expect(json.params).toMatchObject({ rounds });
    }
  });

  it('refuses rounds outside 1–10 in one line', async () => {
    const result = await societyHere(['run', TEMPLATE, '--simulate', '--set', 'rounds=11']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--set rounds=11: rounds is a whole number from 1 to 10');
  });
});
