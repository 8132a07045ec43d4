import { describe, expect, it } from 'vitest';
import type { RunTab } from '../store.ts';
import { type TabData, tabShown } from './tabs.ts';

const OWN: RunTab[] = [
  'inputs',
  'transcript',
  'context',
  'timeline',
  'usage',
  'outputs',
  'events',
  'problems',
  'runs',
  'diff',
  'credit',
];
const shown = (data: TabData, open: RunTab = 'inputs') =>
  OWN.filter((id) => tabShown(id, data, open));
const NONE: TabData = {
  instances: 0,
  calls: 0,
  outputs: false,
  events: 0,
  diff: false,
  replicas: 0,
};

describe("the run panel's tabs", () => {
  it('offers only Inputs, Transcript, Problems and Runs before a run', () => {
    expect(shown(NONE)).toEqual(['inputs', 'transcript', 'problems', 'runs']);
  });

  it('adds the tabs a run has data for: a run without model calls has no Usage', () => {
    const noCalls = { ...NONE, instances: 3, outputs: true, events: 9 };
    expect(shown(noCalls)).toEqual([
      'inputs',
      'transcript',
      'context',
      'timeline',
      'outputs',
      'events',
      'problems',
      'runs',
    ]);
    // Credit only once a finished run has members to leave out (replicas) and calls to re-send.
    expect(shown({ ...noCalls, calls: 2, diff: true })).toEqual(OWN.filter((t) => t !== 'credit'));
    expect(shown({ ...noCalls, calls: 2, diff: true, replicas: 3 })).toEqual(OWN);
  });

  it('keeps the open tab, so starting a run never takes it away', () => {
    expect(shown(NONE, 'outputs')).toContain('outputs');
  });
});
