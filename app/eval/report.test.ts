import { describe, expect, it } from 'vitest';
import { escapeHtml, shortText } from './html.ts';
import { evalReport, REPORT_CSP } from './report.ts';
import { niceTicks, scoreBarsSvg, scoreDomain } from './report-charts.ts';
import { RUBRICS } from './rubrics.ts';
import type { EvalItemRecord, EvalSummary, VariantSummary } from './types.ts';

const variant = (
  name: string,
  mean: number,
  ci: [number, number],
  costUsd = 0,
): VariantSummary => ({
  name,
  n: 3,
  failed: 0,
  score: { mean, ci95: ci },
  costUsd,
  tokens: 120,
  latencyMs: { p50: 300, p95: 900 },
});

const summary = (patch: Partial<EvalSummary> = {}): EvalSummary => ({
  evalId: 'e0123456789abcde',
  name: 'capitals <quiz>',
  status: 'finished',
  items: 3,
  scorer: 'exact',
  simulated: false,
  document: 'qa.society.json',
  data: 'data.jsonl',
  createdAt: Date.UTC(2026, 10, 2, 9, 30),
  finishedAt: Date.UTC(2026, 10, 2, 9, 31),
  variants: [variant('small', 2 / 3, [0.21, 0.94], 0.0012), variant('big', 1, [0.44, 1], 0.02)],
  ...patch,
});

const item = (patch: Partial<EvalItemRecord>): EvalItemRecord => ({
  evalId: 'e0123456789abcde',
  item: 0,
  variant: 'small',
  jobKey: 'k',
  runId: 'run-a',
  status: 'scored',
  score: 1,
  prediction: 'Paris',
  reference: 'Paris',
  label: 'Capital of France?',
  costUsd: 0.0004,
  tokens: 40,
  calls: 1,
  latencyMs: 300,
  updatedAt: 0,
  ...patch,
});

const ITEMS: EvalItemRecord[] = [
  item({ item: 0, runId: 'run-0-small' }),
  item({
    item: 1,
    runId: 'run-1-small',
    score: 0,
    prediction: '<script>alert("x")</script><img src=x onerror=alert(1)>',
    reference: 'Rome',
    label: 'Capital of "Italy" & more?',
  }),
  item({
    item: 2,
    runId: 'run-2-small',
    status: 'failed',
    score: 0,
    error: 'node a: no key <OPENAI_API_KEY>',
  }),
  item({ item: 0, variant: 'big', runId: 'run-0-big' }),
  item({ item: 1, variant: 'big', runId: 'run-1-big', prediction: { city: 'Rome' } }),
  item({ item: 2, variant: 'big', runId: undefined, status: 'running', score: undefined }),
];

describe('escaping', () => {
  it('escapes the five characters that could open markup or leave an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('shows a value as text, JSON for anything else, cut with an ellipsis', () => {
    expect(shortText('plain')).toBe('plain');
    expect(shortText({ a: 1 })).toBe('{"a":1}');
    expect(shortText(undefined)).toBe('');
    expect(shortText('x'.repeat(10), 5)).toBe('xxxx…');
  });
});

describe('evalReport', () => {
  const page = evalReport(summary(), ITEMS);

  it('is one page that loads nothing: a CSP forbidding it, no script, no external address', () => {
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`);
    expect(REPORT_CSP).toContain("default-src 'none'");
    expect(page).not.toMatch(/<script|<img|<link|<iframe|@import|url\(/i);
    // The only address is the SVG namespace, which nothing fetches.
    const urls = page.match(/https?:\/\/[^\s"'<>]+/g) ?? [];
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg']));
  });

  it("escapes a model's markup, the item's text and the eval's name", () => {
    expect(page).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;',
    );
    expect(page).toContain('Capital of &quot;Italy&quot; &amp; more?');
    expect(page).toContain('<h1>capitals &lt;quiz&gt;</h1>');
    expect(page).toContain('no key &lt;OPENAI_API_KEY&gt;');
  });

  it('shows the table per variant: n, failures, score with its interval, cost, latency', () => {
    const small = page.match(/<tr data-variant="small">[\s\S]*?<\/tr>/)?.[0] ?? '';
    expect(small).toContain('0.667');
    expect(small).toContain('[0.210, 0.940]');
    expect(small).toContain('$0.0012');
    expect(small).toContain('0.3s');
    expect(small).toContain('0.9s');
    expect(page).toContain('<tr data-variant="big">');
  });

  it('shows a failed run as "failed", never as a score, and says how the means count it', () => {
    // Item 3 of `small` failed (an older store kept a 0 with it): its row reads failed.
    expect(page).toMatch(
      /<tr data-item="2" data-variant="small">\s*<td class="num">3<\/td><td>small<\/td>\s*<td class="num failed">failed<\/td>/,
    );
    const dead = evalReport(
      summary({ variants: [{ ...variant('small', 0, [0, 0.56]), failed: 3 }] }),
      ITEMS.filter((i) => i.variant === 'small').map((i) => ({ ...i, status: 'failed' as const })),
    );
    const table = dead.slice(dead.indexOf('<table class="variants"'), dead.indexOf('</table>'));
    expect(table).toMatch(/<td class="num failed">failed<\/td>\s*<td class="num">–<\/td>/);
    expect(table).not.toMatch(/>0\.000</);
    expect(dead).toContain(
      '3 of 3 runs failed: a failed run has no score and counts as 0 in its variant&#39;s score and 95% CI',
    );
    // No bar (it would read as a score of 0) and no point against cost.
    expect(dead).toMatch(/<g class="bar" data-variant="small" data-failed>.*>failed<\/text>/);
    expect(dead).not.toContain('<g class="point" data-variant="small">');
  });

  it('draws a bar with a whisker per variant and a point per variant against cost', () => {
    expect(page.match(/<g class="bar"/g)).toHaveLength(2);
    expect(page.match(/<g class="point"/g)).toHaveLength(2);
    expect(page).toContain('<title>small: 0.667 (95% CI 0.210–0.940, n=3)</title>');
  });

  it('lists the worst items first with their run ids, and says how to open a run', () => {
    const worst = page.match(/data-table="worst">[\s\S]*?<\/table>/)?.[0] ?? '';
    const runIds = [...worst.matchAll(/<code class="run-id">([^<]*)<\/code>/g)].map((m) => m[1]);
    // Zeros first, the failure before the wrong answer; the running item is not listed.
    expect(runIds.slice(0, 2)).toEqual(['run-2-small', 'run-1-small']);
    expect(runIds).toHaveLength(5);
    expect(page).toContain('society show RUN');
  });

  it('labels simulated answers, and says when an eval is not finished', () => {
    expect(page).not.toContain('data-simulated');
    const simulated = evalReport(summary({ simulated: true, status: 'interrupted' }), ITEMS);
    expect(simulated).toMatch(/data-simulated>\[simulated\] answers/);
    expect(simulated).toContain('This eval is interrupted: 6 of 6');
  });
});

describe('ratings on the page', () => {
  const itcma = RUBRICS.itcma!;
  const rated = summary({
    rubric: itcma,
    variants: [
      {
        ...variant('small', 0.5, [0.1, 0.9]),
        ratings: [
          { scale: 'personification', n: 2, mean: 5.5, ci95: [1.2, 7] },
          { scale: 'consistency', n: 1, mean: 4 },
          ...itcma.scales.slice(2).map((s) => ({ scale: s.id, n: 0, mean: 0 })),
        ],
      },
    ],
  });

  it('shows the mean per scale with n, and the interval from n = 2', () => {
    const page = evalReport(rated, []);
    const table = page.match(/<table class="ratings">[\s\S]*?<\/table>/)?.[0] ?? '';
    expect(table).toContain('>Personification</th>');
    expect(table).toContain(`title="${itcma.scales[0]!.description}"`);
    expect(table).toContain(
      '5.50 <span class="note">n=2</span><br><span class="note">[1.20, 7.00]</span>',
    );
    expect(table).toContain('4.00 <span class="note">n=1</span></td>');
    expect(table.match(/<td class="num">–<\/td>/g)).toHaveLength(3);
    expect(page).toContain('on rubric <code>itcma</code> (1 to 7)');
  });

  it('has no ratings section for an eval nobody rates', () => {
    expect(evalReport(summary(), ITEMS)).not.toContain('<h2>Ratings</h2>');
  });
});

describe('charts', () => {
  it('keeps scores on [0, 1] unless an interval goes past it', () => {
    expect(scoreDomain([variant('a', 0.5, [0.2, 0.8])])).toEqual([0, 1]);
    expect(scoreDomain([variant('a', 2.5, [1.5, 3.5])])).toEqual([0, 3.5]);
    expect(scoreDomain([variant('a', -0.2, [-0.6, 0.2])])).toEqual([-0.6, 1]);
  });

  it('ticks the axis at round values', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 3.5)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(-0.6, 1)).toEqual([-0.5, 0, 0.5, 1]);
  });

  it("escapes a variant's name in the chart", () => {
    const svg = scoreBarsSvg([variant('<b onmouseover=x>', 0.5, [0.1, 0.9])]);
    expect(svg).not.toContain('<b ');
    expect(svg).toContain('&lt;b onmouseover=x&gt;');
  });
});
