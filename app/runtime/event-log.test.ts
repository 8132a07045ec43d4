import { describe, expect, it } from 'vitest';
import { Redactor } from '../providers/secrets.ts';
import { EventLog } from './event-log.ts';
import type { RunEvent, RunEventBody } from './events.ts';

const KEY = 'sk-test-analytics-0123456789abcdef';

describe('analytics reports in the log', () => {
  it('are scrubbed of keys like every other event', () => {
    const log = new EventLog('run-1', new Redactor([KEY]), () => {});
    log.emit({
      type: 'report',
      node: 'world',
      instance: 'world@r1',
      kind: 'interaction',
      data: { from: 'ann', to: 'bob', kind: 'chat', text: `my key is ${KEY}` },
    });
    log.emit({
      type: 'report',
      node: 'world',
      instance: 'world@r1',
      kind: 'series',
      data: { name: 'topic', x: 1, values: { yard: KEY } },
    });
    expect(JSON.stringify(log.events)).not.toContain(KEY);
    expect(log.events[0]).toMatchObject({ data: { text: 'my key is [redacted]' }, seq: 1 });
  });

  it('are not emitted again when a continued run reports them again', () => {
    const point = (values: Record<string, number>): RunEventBody => ({
      type: 'report',
      node: 'state',
      instance: 'state@r2',
      kind: 'series',
      data: { name: 'mood', x: 2, values },
    });
    const first = new EventLog('run-1', undefined, () => {});
    first.emit(point({ ann: 0.5 }));
    first.emit(point({ bob: 0.1 }));
    const continued = new EventLog('run-1', undefined, () => {});
    continued.adopt(first.events.slice(0, 1));
    // The same two points again: the first is the logged one, the second is new.
    continued.emit(point({ ann: 0.5 }));
    continued.emit(point({ bob: 0.1 }));
    expect(continued.events.map((e) => (e.type === 'report' ? e.data : null))).toEqual([
      { name: 'mood', x: 2, values: { ann: 0.5 } },
      { name: 'mood', x: 2, values: { bob: 0.1 } },
    ]);
  });

  it('takes a log older builds wrote, its series point an event of its own, as a report', () => {
    const old = {
      type: 'series',
      runId: 'run-0',
      seq: 4,
      time: 1,
      node: 'state',
      instance: 'state@r2',
      name: 'mood',
      x: 2,
      values: { ann: 0.5 },
    } as unknown as RunEvent;
    const continued = new EventLog('run-1', undefined, () => {});
    continued.adopt([old]);
    expect(continued.events).toEqual([
      {
        type: 'report',
        runId: 'run-1',
        seq: 4,
        time: 1,
        node: 'state',
        instance: 'state@r2',
        kind: 'series',
        data: { name: 'mood', x: 2, values: { ann: 0.5 } },
      },
    ]);
    // Run again, the node reports the same point: it is the adopted one, not a new event.
    continued.emit({
      type: 'report',
      node: 'state',
      instance: 'state@r2',
      kind: 'series',
      data: { name: 'mood', x: 2, values: { ann: 0.5 } },
    });
    expect(continued.events).toHaveLength(1);
  });
});
