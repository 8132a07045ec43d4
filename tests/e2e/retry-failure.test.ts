import { afterAll, describe, expect, it } from 'vitest';
import { type ChainServer, chainOfThree, startChainServer } from '../support/chain.ts';
import type { StubOpenAI } from '../support/stub-openai.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

/** Three agents in a chain, against a local OpenAI-compatible server. */
const CHAIN = chainOfThree({ name: 'Chain' });

let server: ChainServer | undefined;
let stub: StubOpenAI | undefined;

afterAll(async () => {
  await stub?.close();
});

describe.skipIf(!HAVE_CHROMIUM)('a failed run, retried from the failure', () => {
  const studio = studioForSuite(async () => {
    server = await startChainServer();
    stub = server.stub;
    // The server answers a and b, then refuses c.
    server.refuseAfter(2);
    return { env: { OPENAI_API_KEY: 'sk-e2e-retry-0123456789', OPENAI_BASE_URL: stub.url } };
  });

  it('sends only the call the failed run lacked and shows the outputs', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'chain.society.json', CHAIN, 'c');
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('input-q').fill('tides');

    // The server answers a and b, then refuses c: the run fails and offers the retry.
    await page.getByTestId('tb-run-live').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/failed/i);
    expect(await page.getByTestId('run-error').textContent()).toMatch(/overloaded/);
    expect(stub!.count()).toBe(3);

    server!.answerAll();
    // Live again: with a threshold of $0 the retry asks first, in the Run live dialog, with the
    // whole run's figures said to be an upper bound; cancelled, nothing is sent or recorded.
    s.store.setSetting('editor.liveRuns', { askAboveUsd: 0 });
    await page.getByTestId('run-retry').click();
    const dialog = page.getByTestId('live-estimate');
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/^Run live\?.*This retry calls the models/);
    expect(await dialog.getByTestId('live-estimate-upper-bound').textContent()).toMatch(
      /the whole run: calls its record already answers are not sent again/,
    );
    expect(await dialog.getByTestId('live-estimate-worst').textContent()).toMatch(/3 calls/);
    await s.screenshot('retry-live-estimate');
    await dialog.getByTestId('live-estimate-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    expect(stub!.count()).toBe(3);
    expect(s.store.listRuns()).toHaveLength(1);
    await page.getByTestId('run-retry').click();
    await dialog.getByTestId('live-estimate-run').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/succeeded/i);
    expect(stub!.count()).toBe(4);
    await expect.poll(() => page.getByTestId('run-retry').count()).toBe(0);
    const runs = s.store.listRuns();
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'failed']);
    expect(runs[0]!.parentRunId).toBe(runs[1]!.id);
    expect(s.store.getRun(runs[0]!.id)!.outputs).toEqual({ answer: '<C: <B: <A: tides>>>' });
    await s.screenshot('run-retried-from-failure');
  });
});
