/**
 * The studio's Ask box, through the API as the page calls it: a question put to a member of a run
 * held in the debugger or finished is answered in its context by the backend's provider (the key
 * stays in the backend), recorded as a side call, and listed; the run itself is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { DEBATE } from '../../tests/support/debate.ts';
import { call, event, finished, refusal, store, stub, withApi } from './handlers.test-helper.ts';

const KEY = 'sk-handlers-interview-test-0123456789abcdef';
withApi({ name: 'interview', key: KEY, openai: 'plain' });

describe('run.interview: asking a member from the context view', () => {
  it('answers a held run in the member context, as a side call, and the run goes on unchanged', async () => {
    const plain = await call('run.start', {
      document: DEBATE,
      inputs: { question: 'Bridge?' },
      mode: 'live',
    });
    await finished(plain.runId);
    const { runId } = await call('run.start', {
      document: DEBATE,
      inputs: { question: 'Bridge?' },
      mode: 'live',
      breakpoints: [{ round: 3 }],
    });
    await event(runId, (e) => e.type === 'paused');
    const before = stub.count();
    const answer = await call('run.interview', {
      runId,
      instance: 'member#2@r2',
      question: 'Why?',
    });
    expect(stub.count()).toBe(before + 1);
    expect(answer).toMatchObject({
      instance: 'member#2@r2',
      answer: 'echo: Why?',
      simulated: false,
    });
    const sent = stub.requests.at(-1);
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are cy, a careful debater.' });
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'Why?' });
    // The key went to the server in its header, never to the page.
    expect(JSON.stringify(answer)).not.toContain(KEY);

    await call('run.control', { runId, action: 'resume' });
    expect((await finished(runId)).status).toBe('succeeded');
    expect(store.getRun(runId)!.outputs).toEqual(store.getRun(plain.runId)!.outputs);
    const listed = await call('run.interviews', { runId });
    expect(listed.map((a) => a.question)).toEqual(['Why?']);
    expect(JSON.stringify(store.events(runId))).not.toContain('echo: Why?');

    const none = await refusal(
      call('run.interview', { runId, instance: 'nobody', question: 'Hm?' }),
    );
    expect(none.message).toContain('nobody has made no model call');
  }, 20_000);
});
