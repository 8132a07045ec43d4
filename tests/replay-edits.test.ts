/**
 * Editing a replay: the terminal debugger says at once, at `e`, that the calls after the edit are
 * not in the cassette and asks how to answer them; `--replay-then-simulated` serves what the
 * cassette holds and simulates the rest, labelled as such.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../app/runtime/events.ts';
import { society, societyHere } from './support/cli.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const VQA = 'templates/nlsom-vqa.society.json';
const CASSETTE = 'templates/nlsom-vqa.cassette.json';
const db = join(mkdtempSync(join(tmpdir(), 'society-replay-edits-')), 'runs.db');

async function shown(runId: string): Promise<{ run: { mode: string }; events: RunEvent[] }> {
  return JSON.parse((await societyHere(['show', runId, '--json', '--db', db])).stdout);
}

const sources = (events: RunEvent[]) => {
  const count: Record<string, number> = {};
  for (const e of events)
    if (e.type === 'model.response') count[e.source] = (count[e.source] ?? 0) + 1;
  return count;
};

describe('an edit in the terminal debugger under --replay', () => {
  const step = (script: string) =>
    society(['run', VQA, '--replay', CASSETTE, '--step', '--json', '--db', db], {}, script);

  it('warns at `e`, before the edit is made, and simulates the rest when asked', async () => {
    const result = await step('n\nn\ne It is a red circle.\ns\nc\n');
    expect(result.code, result.stderr).toBe(0);
    const warning = result.stderr.indexOf('the calls after this edit are not in the cassette');
    expect(warning).toBeGreaterThan(0);
    expect(result.stderr).toContain(
      'rerun with --replay-then-simulated CASSETTE or --replay-then-live CASSETTE',
    );
    // Said at `e`: before the edit is made, and before the run goes on.
    expect(warning).toBeLessThan(result.stderr.indexOf('describe#1@init will send'));
    expect(result.stderr).toContain('the run is replay-then-simulated');

    const out = JSON.parse(result.stdout);
    expect(out.mode).toBe('replay-then-simulated');
    expect(out.simulated).toBe(true);
    expect(out.outputs.transcript).toContain('Round 0, describe#1@init: It is a red circle.');
    const { run, events } = await shown(out.runId);
    expect(run.mode).toBe('replay-then-simulated');
    // What the edit does not change still comes from the cassette.
    const count = sources(events);
    expect(count.cassette).toBeGreaterThan(0);
    expect(count.simulated).toBeGreaterThan(0);

    // Its export replays: the edited message travels with it, the simulated calls in its record.
    const file = join(mkdtempSync(join(tmpdir(), 'society-replay-edits-')), 'run.json');
    expect((await societyHere(['export', out.runId, '-o', file, '--db', db])).code).toBe(0);
    const replay = await societyHere(['replay', file, '--db', db, '--json', '-q']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).outputs).toEqual(out.outputs);
  });

  it('calls the models for the rest when asked to go live', async () => {
    const stub = await startStubOpenAI({ respond: () => ({ text: '(b)' }) });
    try {
      const result = await society(
        [
          ...['run', VQA, '--replay', CASSETTE, '--step', '--json', '--db', db],
          ...['--provider', `openai=${stub.url}`],
        ],
        { OPENAI_API_KEY: 'sk-replay-edits-test-0123456789' },
        'n\nn\ne It is a blue square.\nl\nc\n',
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('the run is replay-then-live');
      const out = JSON.parse(result.stdout);
      expect(out.mode).toBe('replay-then-live');
      const { events } = await shown(out.runId);
      // A call whose prompt does not read the edited description (the other two descriptions)
      // is still answered by the cassette; every call after the edit went to the server, each
      // once, even where the server's same answer made two rounds ask the same thing (an answer
      // the run got live is not handed back), and nothing was simulated.
      const count = sources(events);
      expect(count).toEqual({ cassette: 3, live: 14 });
      expect(stub.count()).toBe(count.live);
    } finally {
      await stub.close();
    }
  });

  it('keeps replaying when the edit is cancelled', async () => {
    const result = await step('n\nn\ne It is a red circle.\nc\nc\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("edit cancelled: describe#1@init's message stays as it was");
    const out = JSON.parse(result.stdout);
    expect(out.mode).toBe('replay');
    expect(out.outputs.transcript).not.toContain('It is a red circle.');
  });
});

describe('society run --replay-then-simulated', () => {
  it('serves recorded calls from the cassette and simulates the ones it lacks', async () => {
    const before = readFileSync(CASSETTE, 'utf8');
    // One round more than the cassette recorded: round 4 and what follows it are not in it.
    const result = await societyHere([
      'run',
      VQA,
      '--replay-then-simulated',
      CASSETTE,
      '--set',
      'rounds=4',
      ...['--db', db, '--json', '-q'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.mode).toBe('replay-then-simulated');
    expect(out.simulated).toBe(true);
    const { run, events } = await shown(out.runId);
    expect(run.mode).toBe('replay-then-simulated');
    // Rounds 1 to 3 as recorded (3 descriptions + 3 × 4 asks), then round 4, the summary and
    // the leader, simulated.
    expect(sources(events)).toEqual({ cassette: 15, simulated: 6 });
    expect(readFileSync(CASSETTE, 'utf8')).toBe(before); // the cassette is left as it was
  });

  it('is refused with --simulate or another cassette flag', async () => {
    const both = await societyHere(['run', VQA, '--replay-then-simulated', CASSETTE, '--simulate']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--simulate cannot be combined with --replay/);
    const two = await societyHere([
      'run',
      VQA,
      ...['--replay-then-simulated', CASSETTE, '--replay', CASSETTE],
    ]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain(
      'use only one of --replay, --replay-then-live, --replay-then-simulated and --record',
    );
  });
});
