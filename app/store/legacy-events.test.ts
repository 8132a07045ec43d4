import { describe, expect, it } from 'vitest';
import { stepsOf } from '../environments/step-report.ts';
import type { RunEvent } from '../runtime/events.ts';
import { newRun, store, withTempStores } from './store.test-helper.ts';

/** A step as builds before step reports stored it. */
const OLD_STEP = {
  type: 'environment.step',
  node: 'dispatcher',
  instance: 'dispatcher',
  step: 0,
  commands: [{ command: 'goto_agent0_storage0', by: 'model' }],
  rejections: [],
  feedback: [],
  completed: [],
  failed: [],
  state: { level: 'level_3', step: 1 },
  attempts: 1,
  done: false,
  simulated: false,
};

withTempStores();

describe('a run stored with environment.step events', () => {
  it('reads each as the step report the dispatcher logs now', () => {
    const s = store();
    const runId = newRun(s).id;
    const writer = s.eventWriter(runId);
    writer.push({ ...OLD_STEP, runId, seq: 1, time: 5 } as unknown as RunEvent);
    writer.flush();
    const events = s.events(runId);
    expect(events).toEqual([
      {
        runId,
        seq: 1,
        time: 5,
        type: 'report',
        node: 'dispatcher',
        instance: 'dispatcher',
        kind: 'step',
        data: expect.objectContaining({ step: 0, attempts: 1, done: false }),
      },
    ]);
    expect(stepsOf(events).map((s) => s.commands)).toEqual([OLD_STEP.commands]);
    // Asked for reports only, the old steps come too.
    expect(s.events(runId, { types: ['report'] })).toHaveLength(1);
  });
});
