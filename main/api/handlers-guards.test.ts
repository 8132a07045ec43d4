/**
 * What the studio checks before a run spends or stops where nobody expected, called the way the
 * page calls it: a document whose own budget is below its likely estimate is refused before it
 * is recorded (naming the limit and the figure) unless the person runs it anyway; a live fork and
 * a live retry ask first above the spending threshold, as Run live does; an edit held under a
 * cassette replay says first how the calls the cassette lacks are answered; an input left empty
 * is refused before the run is recorded, in the studio's words. A local
 * OpenAI-compatible server counts what reaches it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chainOfThree } from '../../tests/support/chain.ts';
import {
  call,
  chainServer,
  event,
  finished,
  refusal,
  store,
  stub,
  withApi,
} from './handlers.test-helper.ts';

/** Three agents in a chain: a run needs three calls. */
const chain = (settings: Record<string, unknown> = {}) =>
  chainOfThree({ settings: { retry: { attempts: 1 }, ...settings } });

const VQA = JSON.parse(
  readFileSync(new URL('../../templates/nlsom-vqa.society.json', import.meta.url), 'utf8'),
);
const QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';

withApi({ name: 'guards', key: 'sk-handlers-guards-0123456789', openai: 'chain' });

describe('run.start: a budget the run cannot meet', () => {
  it('is refused in every mode before anything is recorded, unless the person runs it anyway', async () => {
    const doc = chain({ budget: { maxCalls: 2 } });
    for (const mode of ['simulated', 'live'] as const) {
      const requests = stub.count();
      const refused = await refusal(
        call('run.start', { document: doc, inputs: { q: 'tides' }, mode }),
      );
      expect(refused.reason).toBe('budget');
      expect(refused.message).toBe(
        "settings.budget.maxCalls is 2 but a run needs about 3 calls (likely estimate): nothing was run. Raise settings.budget.maxCalls to 3 in the document's settings (inspector → Document → settings), or run anyway (the run stops at the budget)",
      );
      expect(store.listRuns()).toEqual([]);
      expect(stub.count()).toBe(requests);
    }
    const anyway = await call('run.start', {
      document: doc,
      inputs: { q: 'tides' },
      mode: 'simulated',
      allowBudgetStop: true,
    });
    expect(anyway.warnings).toEqual([
      'settings.budget.maxCalls is 2 but a run needs about 3 calls (likely estimate): the run may stop with "budget exceeded" (raise settings.budget.maxCalls to 3 in the document\'s settings (inspector → Document → settings))',
    ]);
    const end = await finished(anyway.runId);
    expect(end.status).toBe('failed');
    expect(String(end.error)).toMatch(/budget/);
  });
});

describe('run.start: an input left empty', () => {
  it("is refused before anything is recorded, in one line of the studio's words", async () => {
    const runs = store.listRuns().length;
    const refused = await refusal(
      call('run.start', { document: chain(), inputs: {}, mode: 'simulated' }),
    );
    expect(refused.message).toBe('give a value for "q" before running (the Inputs tab)');
    expect(refused.message).not.toMatch(/--input|\n/);
    expect(store.listRuns().length).toBe(runs);
  });
});

describe('a live fork and a live retry go through the spending threshold', () => {
  it('refuses them unconfirmed above the threshold, says the estimate is an upper bound, and runs them once agreed', async () => {
    chainServer.refuseAfter(2);
    const failed = await call('run.start', {
      document: chain(),
      inputs: { q: 'tides' },
      mode: 'live',
    });
    expect((await finished(failed.runId)).status).toBe('failed');
    chainServer.answerAll();
    await call('settings.liveRuns.set', { askAboveUsd: 0 });
    try {
      const runs = store.listRuns().length;
      const requests = stub.count();
      const retry = await refusal(call('runs.continue', { runId: failed.runId }));
      expect(retry.reason).toBe('spend');
      expect(retry.message).toMatch(
        /^this live retry may cost up to \$0\.\d+ \(the whole run's estimate: an upper bound\) \(3 calls, \d+ tokens\), above the \$0\.00 set in Settings → Live runs: confirm it first$/,
      );
      const fork = await refusal(
        call('runs.fork', { runId: failed.runId, edits: [{ instance: 'a', text: 'ebb' }] }),
      );
      expect(fork.reason).toBe('spend');
      expect(fork.message).toMatch(/^this live fork may cost up to/);
      expect(store.listRuns()).toHaveLength(runs);
      expect(stub.count()).toBe(requests);

      const estimate = await call('runs.estimate', { runId: failed.runId });
      expect(estimate).toMatchObject({ ask: true, askAboveUsd: 0, worstCase: { calls: 3 } });

      const agreed = await call('runs.continue', { runId: failed.runId, costConfirmed: true });
      expect((await finished(agreed.runId)).status).toBe('succeeded');
      expect(stub.count() - requests).toBe(1);
    } finally {
      await call('settings.liveRuns.set', { askAboveUsd: 0.5 });
    }
  });
});

describe('run.editHeld under a cassette replay', () => {
  it('asks how the rest is answered: refused without a choice, live through the threshold, simulated labelled', async () => {
    const { runId } = await call('run.start', {
      document: VQA,
      mode: 'replay',
      replayTemplate: 'nlsom-vqa',
      inputs: { question: QUESTION, image: 'example' },
      breakpoints: [{ message: { from: 'member#1@r2' } }],
    });
    await event(runId, (e) => e.type === 'paused');
    const edit = { runId, kind: 'message', instance: 'member#1@r2', text: 'It is a circle.' };
    const unsaid = await refusal(call('run.editHeld', edit));
    expect(unsaid.message).toMatch(/the calls after an edit cannot come from it/);

    await call('settings.liveRuns.set', { askAboveUsd: 0 });
    const requests = stub.count();
    try {
      const live = await refusal(call('run.editHeld', { ...edit, beyondCassette: 'live' }));
      expect(live.reason).toBe('spend');
      expect(live.message).toMatch(/^going live for the rest of this run may cost up to/);
    } finally {
      await call('settings.liveRuns.set', { askAboveUsd: 0.5 });
    }

    const done = await call('run.editHeld', { ...edit, beyondCassette: 'simulated' });
    expect(done.mode).toBe('replay-then-simulated');
    await call('run.control', { runId, action: 'resume' });
    const end = await finished(runId);
    expect(end.status).toBe('succeeded');
    expect(end.mode).toBe('replay-then-simulated');
    expect(stub.count()).toBe(requests);
  });
});
