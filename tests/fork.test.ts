/**
 * Forking a run with an edited message: everything before the edit is served from the parent's
 * record (the server sees no request for it), and the calls the edit changes go live and differ.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../app/runtime/events.ts';
import { societyHere, societyInProcess } from './support/cli.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const VQA = 'templates/nlsom-vqa.society.json';
const inputs = [
  '--input',
  'question=What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star',
  '--input',
  'image=@templates/nlsom-vqa.example.png',
];

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
let db: string;
beforeAll(async () => {
  // A deterministic "model": the answer depends only on what it was asked.
  stub = await startStubOpenAI({
    respond: (body) => {
      const text = JSON.stringify(body.messages);
      let h = 7;
      for (let i = 0; i < text.length; i++) h = (h * 33 + text.charCodeAt(i)) >>> 0;
      if (text.includes('letter only')) return { text: `(${'abcd'[h % 4]})` };
      return { text: `reply ${h.toString(36)}${text.includes('ending with') ? '?' : ''}` };
    },
  });
  db = join(mkdtempSync(join(tmpdir(), 'society-fork-')), 'runs.db');
});
afterAll(() => stub.close());

const common = () => ['--db', db, '--provider', `openai=${stub.url}`, '--json', '-q'];

async function eventsOf(runId: string): Promise<RunEvent[]> {
  const shown = await societyInProcess(['show', runId, '--json', '--db', db]);
  return JSON.parse(shown.stdout).events;
}

describe('society fork', () => {
  it('serves calls before the edit from the record and makes the changed ones live', async () => {
    const parent = await societyInProcess(['run', VQA, ...inputs, ...common()]);
    expect(parent.code, parent.stderr).toBe(0);
    const parentId = JSON.parse(parent.stdout).runId as string;
    expect(stub.count()).toBe(17);

    const before = stub.count();
    const fork = await societyInProcess([
      'fork',
      parentId,
      '--edit',
      'member#1@r2=It is a blue square.',
      ...common(),
    ]);
    expect(fork.code, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout);

    // Round 3 (organizer + 3 members), the summary and the leader read the edited record:
    // those 6 calls, and only those, reach the server.
    expect(stub.count() - before).toBe(6);
    const liveRequests = stub.requests.slice(before).map((r) => JSON.stringify(r.messages));
    expect(liveRequests[0]).toContain('It is a blue square.');

    const parentEvents = await eventsOf(parentId);
    const forkEvents = await eventsOf(forked.runId);
    const responses = (events: RunEvent[]) =>
      new Map(
        events.flatMap((e) => (e.type === 'model.response' ? [[e.instance, e] as const] : [])),
      );
    const a = responses(parentEvents);
    const b = responses(forkEvents);
    const changed = [
      'organizer@r3',
      'member#0@r3',
      'member#1@r3',
      'member#2@r3',
      'summary@gather',
      'leader@decide',
    ];
    for (const instance of changed) {
      expect(b.get(instance)?.source, instance).toBe('live');
      expect(b.get(instance)?.text, instance).not.toBe(a.get(instance)?.text);
    }
    // Every other call has the parent's answer, and none of them reached the server again.
    for (const [instance, event] of b) {
      if (!changed.includes(instance)) expect(event.text, instance).toBe(a.get(instance)?.text);
    }
    expect(b.has('member#1@r2')).toBe(false); // the edited member was not asked at all

    const diff = await societyInProcess(['diff', parentId, forked.runId, '--db', db]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain(`B forks A after event`);
    expect(diff.stdout).toMatch(/messages: \d+ same, 7 changed, 0 only in A, 0 only in B/);
    expect(diff.stdout).toContain('B: It is a blue square.');
  });

  it('refuses an instance the run does not have', async () => {
    const parent = await societyInProcess(['run', VQA, ...inputs, ...common()]);
    const parentId = JSON.parse(parent.stdout).runId as string;
    const result = await societyInProcess([
      'fork',
      parentId,
      '--edit',
      'member#9@r2=x',
      ...common(),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has no node instance "member#9@r2"/);
    // Out of the run's range, not a number, or no fork point at all: each one line, exit 2.
    const late = await societyInProcess(['fork', parentId, '--at', '100000', ...common()]);
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/^society: the fork point must be an event number from 2 to \d+/);
    const word = await societyInProcess(['fork', parentId, '--at', 'start', ...common()]);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/^society: --at must be an event number/);
    const nowhere = await societyInProcess(['fork', parentId, ...common()]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toBe('society: say where to fork: --at SEQ, or --edit INSTANCE=TEXT\n');
  });
});

describe('an exported fork', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'society-fork-export-'));

  /** `society export RUN` then `society replay` of the file, with no provider and no key. */
  async function exportAndReplay(runId: string) {
    const file = join(dir(), 'run.json');
    const exported = await societyHere(['export', runId, '-o', file, '--db', db]);
    expect(exported.code, exported.stderr).toBe(0);
    const replay = await societyHere(['replay', file, '--db', db, '--json', '-q']);
    return { file, replay };
  }

  it("replays a fork of a template's replay with the fork's outputs", async () => {
    const parent = await societyHere([
      'run',
      VQA,
      '--replay',
      'templates/nlsom-vqa.cassette.json',
      ...['--db', db, '--json', '-q'],
    ]);
    expect(parent.code, parent.stderr).toBe(0);
    const fork = await societyHere([
      'fork',
      JSON.parse(parent.stdout).runId,
      '--edit',
      'member#1@r2=It is a blue square.',
      ...['--db', db, '--json', '-q'],
    ]);
    expect(fork.code, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout);
    // The parent's answers were simulated, so are the fork's new calls, and it says so.
    expect(forked.mode).toBe('replay-then-simulated');

    const { replay } = await exportAndReplay(forked.runId);
    expect(replay.code, replay.stderr).toBe(0);
    const replayed = JSON.parse(replay.stdout);
    expect(replayed.mode).toBe('replay');
    expect(replayed.outputs).toEqual(forked.outputs);
    expect(replayed.outputs.transcript).toContain('member#1@r2: It is a blue square.');
    expect(replayed.usage.calls).toBe(forked.usage.calls);
  });

  it('replays a live fork with no request to the server, and a fork of it keeps the edit', async () => {
    const parent = await societyHere(['run', VQA, ...inputs, ...common()]);
    expect(parent.code, parent.stderr).toBe(0);
    const fork = await societyHere([
      'fork',
      JSON.parse(parent.stdout).runId,
      '--edit',
      'member#1@r2=It is a blue square.',
      ...common(),
    ]);
    expect(fork.code, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout);

    const before = stub.count();
    const { file, replay } = await exportAndReplay(forked.runId);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).outputs).toEqual(forked.outputs);
    expect(stub.count()).toBe(before);
    // The export names the edit: the member's outputs were given, not produced.
    const events = JSON.parse(readFileSync(file, 'utf8')).events as RunEvent[];
    const given = events.find((e) => e.type === 'node.finished' && e.instance === 'member#1@r2');
    expect(given).toMatchObject({ given: true, outputs: { text: 'It is a blue square.' } });

    // A fork of the fork, edited later: the first edit stands (the member is not asked), and
    // only the calls after the new edit reach the server.
    const again = await societyHere([
      'fork',
      forked.runId,
      '--edit',
      'member#2@r3=A blue square, surely.',
      ...common(),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(stub.count() - before).toBe(2); // the summary and the leader, who read the new text
    const twice = JSON.parse(again.stdout);
    expect(twice.outputs.transcript).toContain('member#1@r2: It is a blue square.');
  });

  it('refuses an export whose edit is malformed, naming the field', async () => {
    const parent = await societyHere([
      'run',
      VQA,
      '--replay',
      'templates/nlsom-vqa.cassette.json',
      ...['--db', db, '--json', '-q'],
    ]);
    const fork = await societyHere([
      'fork',
      JSON.parse(parent.stdout).runId,
      '--edit',
      'member#1@r2=It is a blue square.',
      ...['--db', db, '--json', '-q'],
    ]);
    const { file } = await exportAndReplay(JSON.parse(fork.stdout).runId);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const at = data.events.findIndex((e: { given?: boolean }) => e.given === true);
    data.events[at].outputs = 'It is a blue square.';
    writeFileSync(file, JSON.stringify(data));
    const replay = await societyHere(['replay', file, '--db', db]);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain(`is not a run export (events.${at}.outputs:`);
  });
});
