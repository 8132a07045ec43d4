/**
 * Accessibility checks with axe-core in the studio's page. axe is put into the page once per page
 * load and runs there (`axe.run`): the studio has no frame from another origin, so nothing needs
 * axe in more than the one frame. (@axe-core/playwright's AxeBuilder puts axe into every frame
 * at every check and finishes each check in a new blank page: 0.5–1 s a check, against about
 * 0.1–0.3 s here.)
 */
import axe, { type AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';

export interface AxeCheck {
  /** CSS selectors of the parts checked (the whole page when none). */
  include?: string[];
  /** Only these rules (all of axe's default ones when not given). */
  rules?: string[];
}

/** axe's results for the page as it is now: violations in full, other outcomes by rule. */
export async function axeCheck(page: Page, check: AxeCheck = {}): Promise<AxeResults> {
  // A reload or a navigation leaves a page without axe: it is put in again.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axe.source);
  return page.evaluate(
    ({ include, rules }) => {
      const page = globalThis as unknown as {
        axe: typeof axe;
        document: Parameters<typeof axe.run>[0];
      };
      return page.axe.run(include.length > 0 ? { include } : page.document, {
        // Passes and the rest are listed by rule, without every element they cover.
        resultTypes: ['violations'],
        ...(rules ? { runOnly: { type: 'rule' as const, values: rules } } : {}),
      });
    },
    { include: check.include ?? [], rules: check.rules },
  );
}

/** The serious and critical violations, one line each: rule, impact, count, first targets. */
export function seriousViolations(results: AxeResults): string[] {
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}, ${v.nodes.length}): ${v.nodes
          .slice(0, 6)
          .map((n) => `${n.target.join(' ')}${n.any[0]?.message ? ` [${n.any[0].message}]` : ''}`)
          .join(' | ')}`,
    );
}
