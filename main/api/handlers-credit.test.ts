/**
 * The studio's Credit tab, through the API as the page calls it: a finished run's members are
 * each left out in a fork of it, made by the backend with its own key; the page gets one row per
 * member with a fork it can open, and never the key. A live credit above the threshold waits for
 * the person's consent, as a live fork does.
 */
import { describe, expect, it } from 'vitest';
import { DEBATE } from '../../tests/support/debate.ts';
import { call, finished, refusal, store, stub, withApi } from './handlers.test-helper.ts';

const KEY = 'sk-handlers-credit-test-0123456789abcdef';
withApi({ name: 'credit', key: KEY, openai: 'plain' });

describe('runs.credit: each member of a stored run left out in turn', () => {
  it('credits a simulated run: one row per member, each fork stored, no call sent', async () => {
    const { runId } = await call('run.start', {
      document: DEBATE,
      inputs: { question: 'Bridge?' },
      mode: 'simulated',
    });
    await finished(runId);
    const before = stub.count();
    const credit = await call('runs.credit', { runId });
    expect(stub.count()).toBe(before);
    expect(credit.simulated).toBe(true);
    expect(credit.output).toBe('answer');
    expect(credit.members.map((m) => m.member)).toEqual(['member#0', 'member#1', 'member#2']);
    const calls = store.events(runId).filter((e) => e.type === 'model.response').length;
    expect(calls).toBeGreaterThan(9);
    for (const row of credit.members) {
      const fork = store.getRun(row.runId);
      expect(fork).toMatchObject({ parentRunId: runId, status: 'succeeded' });
      // Three rounds without the member: its three answers are not asked, the rest are counted.
      expect(row.leftOut).toBe(3);
      expect(row.resent).toBeGreaterThan(0);
      expect(row.leftOut + row.resent + row.fromRecord).toBe(calls);
      // The decisive call is the fork's first request that changed, at its place in the fork's log.
      const decisive = store.events(row.runId).find((e) => e.seq === row.decisive?.seq);
      expect(decisive).toMatchObject({ type: 'model.request', instance: row.decisive?.instance });
    }
  }, 30_000);

  it('scores each fork against the run: exact against the run answer drops by 1 where it changed', async () => {
    const { runId } = await call('run.start', {
      document: DEBATE,
      inputs: { question: 'Bridge?' },
      mode: 'simulated',
    });
    await finished(runId);
    const answer = String(store.getRun(runId)?.outputs?.answer);
    const credit = await call('runs.credit', { runId, metric: 'exact', expect: answer });
    expect(credit.score).toBe(1);
    for (const row of credit.members) {
      expect(row.score).toBe(row.outputChanged ? 0 : 1);
      expect(row.scoreDelta).toBe(row.outputChanged ? -1 : 0);
    }
    const both = await refusal(
      call('runs.credit', { runId, metric: 'exact', expect: 'x', scoreOutput: 'answer' }),
    );
    expect(both.message).toBe("score with a scorer or with the run's own score, not both");
  }, 30_000);

  it('asks before a live credit above the threshold, then sends only the changed calls', async () => {
    const { runId } = await call('run.start', {
      document: DEBATE,
      inputs: { question: 'Bridge?' },
      mode: 'live',
    });
    await finished(runId);
    await call('settings.liveRuns.set', { askAboveUsd: 0 });
    const before = stub.count();
    const refused = await refusal(call('runs.credit', { runId }));
    expect(refused.reason).toBe('spend');
    expect(refused.message).toContain("each of this credit's 3 live forks");
    expect(stub.count()).toBe(before);

    const credit = await call('runs.credit', { runId, costConfirmed: true });
    expect(credit.simulated).toBe(false);
    expect(credit.members).toHaveLength(3);
    const resent = credit.members.reduce((sum, m) => sum + m.resent, 0);
    expect(resent).toBeGreaterThan(0);
    expect(stub.count() - before).toBe(resent);
    expect(JSON.stringify(credit)).not.toContain(KEY);
    for (const row of credit.members)
      expect(store.getRun(row.runId)?.mode).toBe('replay-then-live');
  }, 30_000);

  it('refuses a run that did not succeed, or an output it does not have, in one line', async () => {
    const { runId } = await call('run.start', {
      document: DEBATE,
      inputs: { question: 'Bridge?' },
      mode: 'simulated',
    });
    await finished(runId);
    const missing = await refusal(call('runs.credit', { runId, output: 'nope' }));
    expect(missing.message).toBe(
      `run ${runId} has no output "nope" to compare (its outputs: answer)`,
    );
  }, 30_000);
});
