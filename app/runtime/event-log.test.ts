import { describe, expect, it } from 'vitest';
import { Redactor } from '../providers/secrets.ts';
import { EventLog } from './event-log.ts';
import type { RunEventBody } from './events.ts';

const KEY = 'sk-test-analytics-0123456789abcdef';

describe('analytics events in the log', () => {
  it('are scrubbed of keys like every other event', () => {
    const log = new EventLog('run-1', new Redactor([KEY]), () => {});
    log.emit({
      type: 'interaction',
      node: 'world',
      instance: 'world@r1',
      from: 'ann',
      to: 'bob',
      kind: 'chat',
      text: `my key is ${KEY}`,
    });
    log.emit({
      type: 'series',
      node: 'world',
      instance: 'world@r1',
      name: 'topic',
      x: 1,
      values: { yard: KEY },
    });
    expect(JSON.stringify(log.events)).not.toContain(KEY);
    expect(log.events[0]).toMatchObject({ text: 'my key is [redacted]', seq: 1 });
  });

  it('are not emitted again when a continued run reports them again', () => {
    const point: RunEventBody = {
      type: 'series',
      node: 'state',
      instance: 'state@r2',
      name: 'mood',
      x: 2,
      values: { ann: 0.5 },
    };
    const first = new EventLog('run-1', undefined, () => {});
    first.emit(point);
    first.emit({ ...point, values: { bob: 0.1 } });
    const continued = new EventLog('run-1', undefined, () => {});
    continued.adopt(first.events.slice(0, 1));
    // The same two points again: the first is the logged one, the second is new.
    continued.emit(point);
    continued.emit({ ...point, values: { bob: 0.1 } });
    expect(continued.events.map((e) => (e.type === 'series' ? e.values : null))).toEqual([
      { ann: 0.5 },
      { bob: 0.1 },
    ]);
  });
});
