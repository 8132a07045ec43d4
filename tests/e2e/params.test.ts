import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite, zoomToFullDetail } from './support.ts';

/** A mindstorm whose rounds, structure, members and tone are template parameters. */
const DOC = fileURLToPath(new URL('../../docs/examples/parameters.society.json', import.meta.url));
/** Monarchy: the organizer and every member each round, then the summary and the leader. */
const calls = (rounds: number, members: number) => rounds * (1 + members) + 2;

describe.skipIf(!HAVE_CHROMIUM)('template parameters in the studio', () => {
  const studio = studioForSuite();

  it('shows bound fields with their defaults, and runs with the values set in the Inputs panel', async () => {
    const s = studio();
    const { page } = s;
    copyFileSync(DOC, path.join(s.workspace, 'parameters.society.json'));
    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-parameters.society.json').click();

    // The canvas draws the graph bound with the defaults: 2 rounds, three members.
    await expect.poll(() => page.getByTestId('rounds-storm').textContent()).toBe('rounds ×2');
    expect(await page.getByTestId('replicas-member').textContent()).toMatch(/×3/);

    // The inspector says which parameter a field follows, and offers no box to overwrite it.
    // (The container's title is read, and clicked, at full detail.)
    await zoomToFullDetail(page, page.getByTestId('node-storm'));
    await page.getByTestId('node-storm').locator('.container-title').click();
    const chip = page.getByTestId('field-maxRounds-param');
    await expect.poll(() => chip.textContent()).toBe('parameter rounds = 2');
    expect(await page.getByTestId('field-structure-param').textContent()).toBe(
      'parameter structure = monarchy',
    );
    expect(await page.getByTestId('field-maxRounds').count()).toBe(0);

    // One control per parameter, filled with its default; the run honours what is set.
    await page.getByTestId('run-tab-inputs').click();
    const rounds = page.getByTestId('param-rounds');
    expect(await rounds.inputValue()).toBe('2');
    expect(await rounds.getAttribute('max')).toBe('5');
    expect(await page.getByTestId('param-structure').inputValue()).toBe('monarchy');
    expect(await page.getByTestId('param-members').inputValue()).toBe(
      'a historian, an engineer, a poet',
    );
    await s.screenshot('params-inputs');
    await rounds.fill('3');
    await page.getByTestId('param-members').fill('a judge, a nurse');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);
    expect(await page.getByTestId('run-usage').textContent()).toMatch(
      new RegExp(`^${calls(3, 2)} calls · `),
    );

    // A value the parameter does not take is refused before anything runs.
    await page.getByTestId('run-tab-inputs').click();
    await rounds.fill('9');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('notice').textContent())
      .toContain('rounds is a whole number from 1 to 5');

    // Running changed nothing in the document: the reference is still there.
    expect(await page.getByTestId('dirty-marker').count()).toBe(0);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
