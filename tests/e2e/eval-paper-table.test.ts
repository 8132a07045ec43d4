/**
 * The Evals view shows what `society eval-show` prints for an eval: each variant against the
 * first by a paired test ("vs first": the difference, p, a mark when significant, the test named
 * on hover), the cost per solved item, each item's repeat, and the paper layout a table command
 * stored with its eval, readable in the dark and the light theme.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compareWithPaper, comparisonHeadings } from '../../app/eval/paper-values.ts';
import { registerTablePresenter } from '../../app/eval/table-presenters.ts';
import { columns } from '../../app/terminal/columns.ts';
import { societyHere } from '../support/cli.ts';
import { qaEvalArgs, writeQaEval } from '../support/qa-eval.ts';
import { axeCheck } from './axe.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

/** The paper's figures this layout prints beside ours (a made-up table for the test). */
const PAPER: Record<string, number> = { small: 0.31, big: 0.42 };

describe.skipIf(!HAVE_CHROMIUM)('an eval with a paper layout in the Evals view', () => {
  const studio = studioForSuite();
  const files = writeQaEval();
  // The layout a table command would register: per variant the paper's figure, ours with its
  // 95% interval and the difference, as every table command prints them.
  registerTablePresenter('e2e-paper-layout', async () => (summary, _items, context) => {
    const { table } = context as { table: string };
    const rows = [['variant', ...comparisonHeadings('accuracy')]];
    for (const v of summary.variants) {
      const c = compareWithPaper(PAPER[v.name] ?? null, { ...v.score, n: v.n }, (x) =>
        x.toFixed(3),
      );
      rows.push([v.name, c.text.paper, c.text.ours, c.text.diff]);
    }
    return [`The paper, ${table}: its figure beside ours`, ...columns(rows)].join('\n');
  });
  let evalId = '';
  let expected = '';

  beforeAll(async () => {
    // Two variants, each item run twice, into the studio's own store.
    const run = await societyHere([...qaEvalArgs(files, studio().dbFile), '--repeats', '2']);
    expect(run.code, run.stderr).toBe(0);
    const made = JSON.parse(run.stdout) as { evalId: string };
    // The same items stored with a paper layout, as a table command stores its eval.
    const { store } = studio();
    const record = store.getEval(made.evalId)!;
    evalId = 'c0ffee00c0ffee00';
    store.openEval({
      id: evalId,
      name: 'one question, as in the paper',
      config: {
        ...record.config,
        table: { kind: 'e2e-paper-layout', context: { table: 'Table 2' } },
      },
      items: record.items,
      simulated: true,
    });
    for (const i of store.evalItems(made.evalId)) store.putEvalItem({ ...i, evalId });
    store.setEvalStatus(evalId, 'finished');
    // What `society eval-show` prints first for it: the view shows the same text.
    const shown = await societyHere(['eval-show', evalId, '--db', studio().dbFile]);
    expect(shown.code, shown.stderr).toBe(0);
    expected = shown.stdout.split('\n\n')[0]!;
    expect(expected).toMatch(/^The paper, Table 2/);
  }, 30_000);

  it('shows vs first, $/solved, repeats and the paper table, readable in both themes', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-evals').click();
    await page.locator(`[data-testid="evals-list"] li[data-eval="${evalId}"] button`).click();
    const detail = page.locator(`[data-testid="eval-detail"][data-eval="${evalId}"]`);
    await detail.waitFor();
    expect(await detail.textContent()).toContain('4 items × 2 repeats');

    // The first variant is the baseline; the second's difference, p and the test on hover.
    const variants = page.getByTestId('eval-variants');
    expect(await variants.locator('th').allTextContents()).toEqual(
      expect.arrayContaining(['vs first', '$/solved']),
    );
    const small = variants.locator('tr[data-variant="small"]');
    const big = variants.locator('tr[data-variant="big"]');
    expect(await small.getByTestId('eval-vs-first').textContent()).toBe('baseline');
    const vsFirst = big.getByTestId('eval-vs-first');
    expect(await vsFirst.isVisible()).toBe(true);
    expect(await vsFirst.textContent()).toMatch(/^[+−±]\d\.\d{3} p (\d\.\d{3}|< 0\.001)( \*)?$/);
    const title = (await vsFirst.getAttribute('title'))!;
    // `contains` scores 0 or 1: McNemar's test over 4 items × 2 repeats.
    expect(title).toMatch(/^McNemar test against small, paired by item and repeat: 8 pairs/);
    expect(title).toMatch(/(not )?significant at 0\.05/);
    // Simulated runs cost nothing, and `small` solved some items: each cost $0.
    expect(await small.getByTestId('eval-cost-per-solved').textContent()).toBe('$0.0000');

    // Each item's two runs, numbered.
    expect(await page.getByTestId('eval-item').count()).toBe(16);
    expect(new Set(await page.getByTestId('eval-item-repeat').allTextContents())).toEqual(
      new Set(['1', '2']),
    );

    // The paper layout: the text `eval-show` prints, in a monospace block.
    const paper = page.getByTestId('eval-paper-text');
    expect(await paper.isVisible()).toBe(true);
    expect(await paper.textContent()).toBe(expected);
    expect(expected).toContain('0.420');
    const font = await paper.evaluate(
      (e) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { fontFamily: string } }
        ).getComputedStyle(e).fontFamily,
    );
    expect(font).toMatch(/mono/i);
    await paper.scrollIntoViewIfNeeded();
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const axe = await axeCheck(page, {
        include: ['[data-testid="eval-paper-table"]', '[data-testid="eval-variants"]'],
        rules: ['color-contrast'],
      });
      expect(
        axe.violations.map((v) => `${scheme}: ${v.id} ${v.nodes.map((n) => n.target)}`),
      ).toEqual([]);
      await s.screenshot(`eval-paper-table-${scheme}`);
    }
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
