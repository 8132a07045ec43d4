/**
 * `society cuisineworld sweep --runner paper`: MindAgent's runner (a turn with nothing readable
 * uses up the turn without moving the game; at most one expiry counted per step), and the
 * paper's GPT-4 figures printed beside ours. The turn-by-turn replay of the paper's own engine
 * traces is app/environments/cuisineworld/replay.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const SHARED = new URL(
  '../../shared/external-data/mindagent/derived-task-timing.json',
  import.meta.url,
);
const hasShared = existsSync(SHARED);
if (!hasShared)
  console.warn(`skipping the bound from MindAgent's timing: ${SHARED.pathname} is absent`);

type Counts = { completed: number; failed: number; open: number };
const total = (c: Counts) => c.completed + c.failed + c.open;

const db = join(mkdtempSync(join(tmpdir(), 'society-cw-runner-')), 'runs.db');
let llm: StubOpenAI;
beforeAll(async () => {
  // A model that keeps both agents waiting.
  llm = await startStubOpenAI({ respond: () => ({ text: 'noop_agent0\nnoop_agent1' }) });
});
afterAll(() => llm.close());

/** A sweep of one level-0 episode at τ1 with a model whose turns 51–59 say nothing readable. */
async function unreadableTail(runner: 'ours' | 'paper') {
  let turn = 0;
  const stub = await startStubOpenAI({
    respond: () => {
      const text = turn >= 51 ? 'I am not sure what to do next.' : 'noop_agent0\nnoop_agent1';
      turn++;
      return { text };
    },
  });
  try {
    const result = await societyHere([
      'cuisineworld',
      'sweep',
      '--controller',
      'model',
      '--model',
      'lab:kitchen-model',
      '--provider',
      `lab=${stub.url}`,
      '--levels',
      '0',
      '--alphas',
      '1',
      '--episodes',
      '1',
      '--runner',
      runner,
      '--concurrency',
      '1',
      '--db',
      db,
      '--json',
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(stub.count()).toBe(60);
    const json = JSON.parse(result.stdout);
    return { json, cell: json.results.level_0['2'][0] as Counts };
  } finally {
    await stub.close();
  }
}

describe('society cuisineworld sweep --runner', () => {
  // Level 0 at τ1 brings an order every 3 steps, and the model says nothing readable on turns
  // 51–59 of 60.
  it('paper: unreadable turns use up the budget without moving the game, so fewer orders come', async () => {
    const paper = await unreadableTail('paper');
    expect(paper.json.runner).toBe('paper');
    // 51 steps in 60 turns: the opening order and 17 more, 18, the per-episode total of the
    // paper's Table 4 for level 0 at τ1 (54 over 3 episodes).
    expect(total(paper.cell)).toBe(18);
    expect(paper.cell.completed).toBe(0);
  });

  it('ours: every turn is a step, so the same answers bring every order of 60 steps', async () => {
    const ours = await unreadableTail('ours');
    expect(ours.json.runner).toBe('ours');
    expect(total(ours.cell)).toBe(21);
  });

  it.skipIf(!hasShared)(
    'paper, greedy, level 0: totals stay within what 60 steps can bring, and the paper’s figures stand beside ours',
    async () => {
      const timing = JSON.parse(readFileSync(SHARED, 'utf8')).dishes.salmonMeatcake as Record<
        string,
        { interval: number }
      >;
      const result = await societyHere([
        'cuisineworld',
        'sweep',
        '--levels',
        '0',
        '--runner',
        'paper',
        '--db',
        db,
        '-q',
      ]);
      expect(result.code, result.stderr).toBe(0);
      const out = result.stdout;
      expect(out).toContain('runner: paper (MindAgent');
      const paperTotals = [54, 31, 25, 18, 18];
      ['1.0', '1.5', '2.0', '2.5', '3.0'].forEach((alpha, t) => {
        // 3 episodes of 60 steps: the opening order and one every interval.
        const bound = 3 * (1 + Math.floor(60 / timing[`alpha_${alpha}`]!.interval));
        const row = new RegExp(`^τ${t + 1} \\(α [\\d.]+\\)\\s+(\\d+)/(\\d+)`, 'm').exec(out);
        expect(row, out).not.toBeNull();
        const ours = Number(row![2]);
        expect(ours).toBeGreaterThan(0);
        expect(ours).toBeLessThanOrEqual(bound);
        expect(paperTotals[t]!).toBeLessThanOrEqual(bound);
      });
      // Table 4's GPT-4 column for level 0 beside ours, with the interval and the difference.
      expect(out).toContain('Table 4 (2 agents), GPT-4 (gpt-4-0613)');
      expect(out).toMatch(
        /^level_0 τ1\s+0\.333 \(18\/54\)\s+0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]\s+[−+±]0\.\d{3}$/m,
      );
      expect(out).toMatch(
        /^level_0 CoS\s+0\.727\s+0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]\s+[−+±]0\.\d{3}$/m,
      );
    },
  );

  it('prints Table 8’s ablation figures for level 3, and "not in paper" where the paper has none', async () => {
    const result = await societyHere([
      'cuisineworld',
      'sweep',
      '--controller',
      'model',
      '--model',
      'lab:kitchen-model',
      '--provider',
      `lab=${llm.url}`,
      '--levels',
      '3,6',
      '--alphas',
      '1,1.25',
      '--episodes',
      '1',
      '--steps',
      '4',
      '--no-feedback',
      '--db',
      db,
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain('Table 8, "GPT-4 w/o feedback"');
    // One order in four steps: no interval from one.
    expect(out).toMatch(/^level_3 τ1\s+0\.160 \(4\/25\)\s+0\.000 \(n=1, no interval\)\s+−0\.160$/m);
    // An α the paper did not run, a level in no table, and a CoS over two τ only.
    expect(out).toMatch(/^level_3 α 1\.25\s+not in paper\s/m);
    expect(out).toMatch(/^level_6 τ1\s+not in paper\s/m);
    expect(out).not.toMatch(/^level_3 CoS/m);
    expect(out).toContain(
      'The paper ran 3 episodes of 60 steps per cell; this sweep ran 1 of 4, so its totals are not the paper',
    );
    expect(out).toContain('runner: ours');
  });

  it('refuses a runner it does not know, in one line', async () => {
    const result = await societyHere(['cuisineworld', 'sweep', '--runner', 'fast', '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('society: --runner must be ours or paper, got "fast"');
  });
});
