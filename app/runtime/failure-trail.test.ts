import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventBody } from './events.ts';
import { continuedLog } from './failure-trail.ts';

const log = (bodies: RunEventBody[]): RunEvent[] =>
  bodies.map((body, i) => ({ ...body, runId: 'r', seq: i + 1, time: i }) as RunEvent);

const request = (callId: string): RunEventBody =>
  ({
    type: 'model.request',
    callId,
    node: 'a',
    instance: 'a',
    profile: 'm',
    provider: 'openai',
    model: 'x',
    messages: [],
  }) as RunEventBody;

describe('continuedLog: the log a continuation of a failed run starts from', () => {
  it('leaves out the failure and the unanswered call’s attempts, and stays gapless', () => {
    const events = log([
      { type: 'run.started', graph: 'g', inputs: {}, mode: 'live' },
      { type: 'node.started', node: 'a', instance: 'a', nodeType: 'agent', inputs: {} },
      request('a:1'),
      { type: 'model.delta', callId: 'a:1', text: 'par' },
      { type: 'model.retry', callId: 'a:1', node: 'a', attempt: 1, delayMs: 1, error: '503' },
      { type: 'model.error', callId: 'a:1', node: 'a', error: '503' },
      { type: 'node.started', node: 'b', instance: 'b', nodeType: 'agent', inputs: {} },
      { type: 'node.failed', node: 'a', instance: 'a', error: '503' },
      { type: 'error', message: 'node "a": 503' },
      {
        type: 'run.finished',
        status: 'failed',
        outputs: {},
        usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
      },
    ] as RunEventBody[]);
    const { kept, sharedUpTo } = continuedLog(events);
    expect(kept.map((e) => e.type)).toEqual([
      'run.started',
      'node.started',
      'model.request',
      'node.started',
    ]);
    expect(kept.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(sharedUpTo).toBe(3);
  });
});
