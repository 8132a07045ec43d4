/**
 * Money is spent only when the person said so. A template opened from the gallery has three
 * distinct actions; with a parameter changed, Replay cassette is refused before anything is
 * sent (a local OpenAI-compatible server, set as the provider, receives nothing) and the notice
 * offers Run live and Run simulated; Run live above the threshold in Settings shows the estimate
 * and sends nothing until the person agrees.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../../app/compiler/index.ts';
import { estimateRun } from '../../app/costs/estimate.ts';
import { usd } from '../../app/costs/money.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { IMAGE_TOKENS } from '../../app/providers/tokens.ts';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { exampleRunValue, runExamples } from '../../app/runtime/examples.ts';
import { DEFAULT_LIMITS } from '../../app/schema/limits.ts';
import { type StubOpenAI, startStubOpenAI } from '../support/stub-openai.ts';
import { HAVE_CHROMIUM, studioForSuite, VQA_QUESTION } from './support.ts';

const TEMPLATE = 'nlsom-vqa.society.json';
/** Ten rounds, every member voting: the estimate passes $0.01 with the built-in prices. */
const PARAMS = { rounds: 10, structure: 'democracy' };

describe.skipIf(!HAVE_CHROMIUM)('replay, simulated and live in the studio', () => {
  let stub: StubOpenAI;
  beforeAll(async () => {
    stub = await startStubOpenAI();
  });
  afterAll(async () => {
    await stub?.close();
  });
  const studio = studioForSuite(async () => ({
    env: { OPENAI_API_KEY: 'sk-e2e-run-modes-0123456789abcdef', OPENAI_BASE_URL: stub.url },
  }));

  it('refuses a replay the cassette cannot answer before any request, and asks before a live run above the threshold', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId(`template-open-${TEMPLATE}`).click();
    await page.getByTestId('node-storm').waitFor();
    expect(await page.getByTestId('tb-replay').textContent()).toBe('Replay cassette');
    expect(await page.getByTestId('tb-run-simulated').textContent()).toBe('Run simulated');
    expect(await page.getByTestId('tb-run-live').textContent()).toBe('Run live');

    // The example inputs as they come; two parameters changed.
    await page.getByTestId('run-tab-inputs').click();
    await expect.poll(() => page.getByTestId('input-question').inputValue()).toBe(VQA_QUESTION);
    await page.getByTestId('param-rounds').fill(String(PARAMS.rounds));
    await page.getByTestId('param-structure').selectOption(PARAMS.structure);

    await page.getByTestId('tb-replay').click();
    const notice = page.getByTestId('notice');
    // The studio checks the cassette against the run before any request: a round trip to the
    // studio, slower than expect.poll's default second on a loaded machine.
    await expect
      .poll(() => notice.textContent(), { timeout: 10_000 })
      .toContain('parameter rounds is 10; the cassette was recorded with 3');
    expect(await notice.textContent()).toContain(
      'parameter structure is democracy; the cassette was recorded with monarchy',
    );
    expect(await notice.getByTestId('notice-run-live').textContent()).toBe('Run live');
    expect(await notice.getByTestId('notice-run-simulated').textContent()).toBe('Run simulated');
    await s.screenshot('replay-refused');
    // Refused before the run: nothing reached the provider, nothing was recorded.
    expect(stub.count()).toBe(0);
    expect(s.store.listRuns()).toEqual([]);
    expect(await page.getByTestId('run-status').textContent()).not.toMatch(/failed/i);

    // A $0.01 threshold, set in Settings.
    await page.getByTestId('settings-button').click();
    await page.getByTestId('live-threshold').fill('0.01');
    await page.getByTestId('live-threshold-save').click();
    await page.getByTestId('live-threshold-saved').waitFor();
    await page.getByTestId('settings-live-runs').scrollIntoViewIfNeeded();
    await s.screenshot('settings-live-runs');
    await page.getByTestId('settings-modal-close').click();

    // Run live, from the notice: the estimate first, the CLI's own figures, nothing sent.
    const compiled = await compileGraph(readFileSync(`templates/${TEMPLATE}`, 'utf8'), undefined, {
      params: PARAMS,
    });
    if (!compiled.ok) throw new Error('the template does not compile');
    // The estimate counts the inputs the run is given: the template's examples.
    const inputs = Object.fromEntries(
      [...runExamples(compiled.plan.nodes.values())].map(([name, example]) => [
        name,
        exampleRunValue(example, new BlobStore(), DEFAULT_LIMITS.imagePixels),
      ]),
    );
    const worst = estimateRun(compiled.plan, DEFAULT_PRICES, {
      inputs,
      imageTokens: IMAGE_TOKENS,
    });
    expect(worst.costUsd).toBeGreaterThan(0.01);
    await notice.getByTestId('notice-run-live').click();
    const dialog = page.getByTestId('live-estimate');
    await dialog.waitFor();
    const worstRow = (await dialog.getByTestId('live-estimate-worst').textContent()) ?? '';
    expect(worstRow).toContain(`${worst.calls} calls`);
    expect(worstRow).toContain(
      `${(worst.promptTokens + worst.completionTokens).toLocaleString('en-US')} tokens`,
    );
    expect(worstRow).toContain(usd(worst.costUsd));
    expect(await dialog.textContent()).toContain('above the $0.01 you set in Settings');
    expect(await dialog.getByTestId('live-estimate-likely').textContent()).toMatch(/calls/);
    await s.screenshot('live-estimate');
    await dialog.getByTestId('live-estimate-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    expect(stub.count()).toBe(0);
    expect(s.store.listRuns()).toEqual([]);

    // Agreed: the run goes live, with the template's example inputs.
    await page.getByTestId('tb-run-live').click();
    await dialog.getByTestId('live-estimate-run').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/succeeded|failed/i);
    expect(stub.count()).toBeGreaterThan(0);
    const sent = stub.requests.map((r) => JSON.stringify(r)).join('\n');
    expect(sent).toContain('What is the large shape in the picture?');
    expect(s.store.listRuns().map((r) => r.mode)).toEqual(['live']);
  });
});
