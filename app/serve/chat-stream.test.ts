import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventBody } from '../runtime/events.ts';
import { AnswerStream } from './chat-stream.ts';

let seq = 0;
const ev = (body: RunEventBody) => ({ ...body, runId: 'r', seq: seq++, time: 0 }) as RunEvent;
const request = (callId: string, node = 'a') =>
  ev({
    type: 'model.request',
    callId,
    node,
    instance: node,
    profile: 'm',
    provider: 'p',
    model: 'x',
    messages: [],
  });
const delta = (text: string, callId = 'a:1') => ev({ type: 'model.delta', callId, text });
const started = (mode: 'live' | 'simulated') =>
  ev({ type: 'run.started', graph: 'g', inputs: {}, mode });

/** The pieces `events` make the stream send, joined by `|`. */
function sent(stream: AnswerStream, events: RunEvent[]): string {
  return events
    .map((e) => stream.take(e))
    .filter(Boolean)
    .join('|');
}

describe('AnswerStream', () => {
  it('sends only the start of the trimmed answer, from the chosen node`s call', () => {
    const stream = new AnswerStream('a');
    const pieces = sent(stream, [
      started('live'),
      request('b:1', 'b'),
      delta('not this', 'b:1'),
      request('a:1'),
      delta('  Hello'),
      delta(' wide '),
      delta('\n'),
      delta('world. '),
    ]);
    expect(pieces).toBe('Hello| wide| \nworld.');
    expect(stream.finish('Hello wide \nworld.')).toBe('');
  });

  it('labels a simulated run`s answer, waiting until "[sim" is the label or not', () => {
    const unlabelled = new AnswerStream('a');
    expect(sent(unlabelled, [started('simulated'), request('a:1'), delta('An answer')])).toBe(
      '[simulated] An answer',
    );
    const labelled = new AnswerStream('a');
    expect(
      sent(labelled, [started('simulated'), request('a:1'), delta('[sim'), delta('ulated] yes')]),
    ).toBe('[simulated] yes');
  });

  it('sends a retried call only beyond what was sent, and says when it said otherwise', () => {
    const retry = ev({
      type: 'model.retry',
      callId: 'a:1',
      node: 'a',
      attempt: 1,
      delayMs: 0,
      error: 'reset',
    });
    const same = new AnswerStream('a');
    expect(
      sent(same, [request('a:1'), delta('One two'), retry, delta('One'), delta(' two three')]),
    ).toBe('One two| three');
    expect(same.finish('One two three')).toBe('');

    const other = new AnswerStream('a');
    expect(sent(other, [request('a:1'), delta('One two'), retry, delta('Three')])).toBe('One two');
    expect(other.finish('Three')).toBeUndefined();
  });

  it('sends nothing before the end without a node, then the whole answer', () => {
    const stream = new AnswerStream(undefined);
    expect(sent(stream, [request('a:1'), delta('text')])).toBe('');
    expect(stream.finish('the answer')).toBe('the answer');
  });
});
