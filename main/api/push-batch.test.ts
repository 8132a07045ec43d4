import { describe, expect, it } from 'vitest';
import type { RunEventPush, RunEventsPush } from '../../app/api/contract.ts';
import { runEventBatcher } from './push-batch.ts';

const push = (n: number, runId = 'r1'): RunEventPush => ({
  push: 'run.event',
  runId,
  event: { type: 'message', n },
});
const turn = () => new Promise((resolve) => setImmediate(resolve));
const numbers = (batch: RunEventsPush) => batch.pushes.map((p) => p.event.n);

describe('run event batches', () => {
  it('sends the events of one turn of the event loop as one message, in order, once it ends', async () => {
    const sent: RunEventsPush[] = [];
    const batcher = runEventBatcher((batch) => sent.push(batch));
    batcher.add(push(1));
    batcher.add(push(2, 'r2'));
    batcher.add(push(3));
    expect(sent).toEqual([]);
    await turn();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.push).toBe('run.events');
    expect(numbers(sent[0]!)).toEqual([1, 2, 3]);
    expect(sent[0]!.pushes.map((p) => p.runId)).toEqual(['r1', 'r2', 'r1']);
    batcher.add(push(4));
    await turn();
    expect(sent.map(numbers)).toEqual([[1, 2, 3], [4]]);
  });

  it('sends a full batch at once, so a long synchronous run streams while it lasts', async () => {
    const sent: RunEventsPush[] = [];
    const batcher = runEventBatcher((batch) => sent.push(batch), 3);
    for (let n = 1; n <= 7; n++) batcher.add(push(n));
    expect(sent.map(numbers)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await turn();
    expect(sent.map(numbers)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    await turn();
    expect(sent).toHaveLength(3);
  });

  it('flushes on demand, and sends nothing once closed', async () => {
    const sent: RunEventsPush[] = [];
    const batcher = runEventBatcher((batch) => sent.push(batch));
    batcher.add(push(1));
    batcher.flush();
    expect(sent.map(numbers)).toEqual([[1]]);
    batcher.flush();
    batcher.add(push(2));
    batcher.close();
    batcher.add(push(3));
    await turn();
    expect(sent.map(numbers)).toEqual([[1]]);
  });
});
