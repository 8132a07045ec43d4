/**
 * The debugging half of the editor's API, called the way the page calls it (through `call`, so
 * params and results go through the contract's schemas): what an agent was sent, editing a held
 * message or output, forking a finished run, comparing two runs and deleting one. Runs replay
 * the VQA template's cassette, and new calls of a fork are simulated: no key, no network.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportRun } from '../../app/runs/export.ts';
import { societyHere } from '../../tests/support/cli.ts';
import { call, dir, event, eventsOf, store, withApi } from './handlers.test-helper.ts';

const VQA = JSON.parse(
  readFileSync(new URL('../../templates/nlsom-vqa.society.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
/** The question the template's cassette was recorded with (README.md). */
const QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';
const KEY = 'sk-handlers-run-test-0123456789abcdef';

// A key the runs must never show, whatever the page sends or asks for.
withApi({ name: 'run', key: KEY });

async function replay(extra: Record<string, unknown> = {}): Promise<string> {
  const { runId } = await call('run.start', {
    document: VQA,
    mode: 'replay',
    replayTemplate: 'nlsom-vqa',
    inputs: { question: QUESTION, image: 'example' },
    ...extra,
  });
  return runId;
}

const IMAGE = `data:image/png;base64,${readFileSync(
  new URL('../../templates/nlsom-vqa.example.png', import.meta.url),
).toString('base64')}`;

/**
 * A simulated run: an edit changes what later agents are asked, which a strict cassette replay
 * could not answer; the simulated provider answers anything (and labels it).
 */
async function simulated(extra: Record<string, unknown> = {}): Promise<string> {
  const { runId } = await call('run.start', {
    document: VQA,
    mode: 'simulated',
    inputs: { question: QUESTION, image: IMAGE },
    ...extra,
  });
  return runId;
}

const finished = (runId: string) => event(runId, (e) => e.type === 'run.finished');

describe('run.context: exactly what an agent was sent', () => {
  it('lists an instance’s calls and shows its last one message by message, with tokens', async () => {
    const runId = await replay();
    expect((await finished(runId)).status).toBe('succeeded');

    const context = await call('run.context', { runId, instance: 'member#1@r2' });
    expect(context.instance).toBe('member#1@r2');
    expect(context.calls).toHaveLength(1);
    const sent = context.call!;
    expect(sent).toMatchObject({
      instance: 'member#1@r2',
      node: 'member',
      callId: 'member#1@r2:1',
    });
    expect(sent.messages.map((m) => m.role)).toContain('system');
    expect(sent.messages.at(-1)?.role).toBe('user');
    for (const m of sent.messages) expect(m.tokens).toBe(Math.ceil(m.text.length / 4));
    expect(sent.tokens).toBe(sent.messages.reduce((n, m) => n + m.tokens, 0));
    // The request the page is shown is the one the model got: its event holds the messages.
    const request = eventsOf(runId).find(
      (e) => e.type === 'model.request' && e.callId === sent.callId,
    ) as { messages: Array<{ content: unknown }> };
    expect(sent.messages).toHaveLength(request.messages.length);
    // The cassette's answers are simulated, and say so.
    expect(sent.response).toMatchObject({ source: 'cassette', simulated: true });
    expect(sent.response?.text).toMatch(/^\[simulated\]/);

    // By node id: every call of every member, oldest first; a chosen call by id.
    const all = await call('run.context', { runId, instance: 'member' });
    expect(all.calls.length).toBeGreaterThan(3);
    expect(all.calls.map((c) => c.seq)).toEqual(
      [...all.calls.map((c) => c.seq)].sort((a, b) => a - b),
    );
    const first = all.calls[0]!;
    const chosen = await call('run.context', { runId, instance: 'member', callId: first.callId });
    expect(chosen.call?.callId).toBe(first.callId);

    // Someone who never called a model: the list is empty, no call.
    expect(await call('run.context', { runId, instance: 'nobody' })).toEqual({
      instance: 'nobody',
      calls: [],
    });
    await expect(call('run.context', { runId: 'no-such-run', instance: 'member' })).rejects.toThrow(
      'there is no run "no-such-run"',
    );
    await expect(call('run.context', { runId, instance: '' })).rejects.toThrow(
      /invalid params for run.context: instance/,
    );
  });
});

describe('run.editHeld: edit and continue', () => {
  it('delivers an edited held message, and it becomes the node’s output', async () => {
    const runId = await simulated({ breakpoints: [{ message: { from: 'member#1@r2' } }] });
    const paused = await event(runId, (e) => e.type === 'paused');
    expect(paused).toMatchObject({
      reason: 'breakpoint',
      at: { kind: 'message', instance: 'member#1@r2' },
    });
    // Only what is held can be edited.
    await expect(
      call('run.editHeld', { runId, kind: 'message', instance: 'leader@decide', text: 'x' }),
    ).rejects.toThrow('no message from leader@decide is waiting to be delivered');
    await expect(
      call('run.editHeld', { runId, kind: 'message', instance: 'member#1@r2' }),
    ).rejects.toThrow(/invalid params for run.editHeld: text/);

    expect(
      await call('run.editHeld', {
        runId,
        kind: 'message',
        instance: 'member#1@r2',
        text: 'It is a blue square.',
      }),
    ).toEqual({ kind: 'message', instance: 'member#1@r2', mode: 'simulated' });
    await call('run.control', { runId, action: 'resume' });
    const end = await finished(runId);
    expect(end.error).toBeUndefined();
    expect(end.status).toBe('succeeded');
    const said = eventsOf(runId).filter((e) => e.type === 'message' && e.from === 'member#1@r2');
    expect(said.map((e) => e.text)).toEqual(['It is a blue square.']);
    const done = eventsOf(runId).find(
      (e) => e.type === 'node.finished' && e.instance === 'member#1@r2',
    ) as { outputs: Record<string, unknown> };
    expect(done.outputs.text).toBe('It is a blue square.');
    // Whoever reads the transcript next was sent the edit.
    const organizer = await call('run.context', { runId, instance: 'organizer@r3' });
    expect(organizer.call?.messages.map((m) => m.text).join('\n')).toContain(
      'It is a blue square.',
    );
  });

  it('sets the output of a node held before it starts; it does not run', async () => {
    const runId = await simulated({ breakpoints: [{ node: 'summary' }] });
    const paused = await event(runId, (e) => e.type === 'paused');
    expect(paused).toMatchObject({ at: { kind: 'node', node: 'summary' } });
    const instance = (paused.at as { instance: string }).instance;
    await call('run.editHeld', {
      runId,
      kind: 'output',
      instance,
      outputs: { summary: 'Everyone agrees: a green triangle.' },
    });
    await call('run.breakpoints', { runId, breakpoints: [] });
    await call('run.control', { runId, action: 'resume' });
    const end = await finished(runId);
    expect(end.error).toBeUndefined();
    expect(end.status).toBe('succeeded');
    const events = eventsOf(runId);
    expect(events.some((e) => e.type === 'model.request' && e.node === 'summary')).toBe(false);
    const leader = await call('run.context', { runId, instance: 'leader' });
    expect(leader.call?.messages.map((m) => m.text).join('\n')).toContain(
      'Everyone agrees: a green triangle.',
    );
  });

  it('never sends a key back, even one typed into a held message', async () => {
    const runId = await simulated({ breakpoints: [{ message: { from: 'member#0@r1' } }] });
    await event(runId, (e) => e.type === 'paused');
    await call('run.editHeld', {
      runId,
      kind: 'message',
      instance: 'member#0@r1',
      text: `my key is ${KEY}`,
    });
    await call('run.breakpoints', { runId, breakpoints: [] });
    await call('run.control', { runId, action: 'resume' });
    await finished(runId);
    const context = await call('run.context', { runId, instance: 'organizer@r2' });
    const shown = JSON.stringify([context, eventsOf(runId), await call('runs.show', { runId })]);
    expect(shown).not.toContain(KEY);
    expect(shown).toContain('my key is [redacted]');
  });
});

describe('runs.fork, runs.diff and runs.delete', () => {
  it('forks a finished run with an edit, streams it live, and diffs it against its parent', async () => {
    const parentId = await replay();
    await finished(parentId);
    const parentEvents = eventsOf(parentId);

    const fork = await call('runs.fork', {
      runId: parentId,
      edits: [{ instance: 'member#1@r2', text: 'It is a blue square.' }],
      simulate: true,
    });
    expect(fork.parentRunId).toBe(parentId);
    const started = parentEvents.find(
      (e) => e.type === 'node.started' && e.instance === 'member#1@r2',
    )!;
    expect(fork.forkSeq).toBe((started.seq as number) - 1);
    const end = await finished(fork.runId);
    expect(end.status).toBe('succeeded');

    // The page is sent the kept part of the parent's log first, then the new events, in order.
    const events = eventsOf(fork.runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.slice(0, fork.forkSeq)).toEqual(
      parentEvents.slice(0, fork.forkSeq).map((e) => ({ ...e, runId: fork.runId })),
    );
    const said = events.filter((e) => e.type === 'message' && e.from === 'member#1@r2');
    expect(said.map((e) => e.text)).toEqual(['It is a blue square.']);

    const listed = await call('runs.list', {});
    expect(listed.find((r) => r.id === fork.runId)).toMatchObject({
      parentRunId: parentId,
      // Its new calls were simulated: the listing must not say "live".
      mode: 'replay-then-simulated',
      status: 'succeeded',
    });
    expect(listed.find((r) => r.id === parentId)).toMatchObject({ mode: 'replay' });

    const diff = await call('runs.diff', { a: parentId, b: fork.runId });
    expect(diff.a.id).toBe(parentId);
    expect(diff.fork).toEqual({ child: 'b', afterSeq: fork.forkSeq });
    const edited = diff.messages.find((m) => m.from === 'member#1@r2')!;
    expect(edited).toMatchObject({
      node: 'member',
      round: 2,
      change: 'changed',
      b: { text: 'It is a blue square.' },
    });
    // Everything said before the edit is the same in both.
    expect(diff.messages.find((m) => m.from === 'member#0@r1')?.change).toBe('same');
    expect(diff.usage.a.calls).toBe(17);
    expect(diff.usage.b.calls).toBeGreaterThan(0);
    expect(diff.outputs.map((o) => o.name)).toEqual(['answer', 'transcript']);
    expect(diff.outputs.find((o) => o.name === 'transcript')?.same).toBe(false);

    // Deleting: the fork goes, its parent stays.
    expect(await call('runs.delete', { runId: fork.runId })).toEqual({ deleted: true });
    await expect(call('runs.show', { runId: fork.runId })).rejects.toThrow('there is no run');
    expect(await call('runs.delete', { runId: fork.runId })).toEqual({ deleted: false });
    expect((await call('runs.show', { runId: parentId })).run.id).toBe(parentId);
  });

  it('a fork made here exports and replays with its edit and its outputs', async () => {
    const parentId = await replay();
    await finished(parentId);
    const fork = await call('runs.fork', {
      runId: parentId,
      edits: [{ instance: 'member#1@r2', text: 'It is a blue square.' }],
    });
    expect((await finished(fork.runId)).status).toBe('succeeded');
    const forked = store.getRun(fork.runId)!;
    // What `society export` writes for it.
    const file = path.join(dir, `${fork.runId}.run.json`);
    writeFileSync(file, JSON.stringify(exportRun(store, forked)));
    const replayed = await societyHere([
      'replay',
      file,
      ...['--db', path.join(dir, 'replays.db'), '--json', '-q'],
    ]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).outputs).toEqual(forked.outputs);
    expect(forked.outputs?.transcript).toContain('member#1@r2: It is a blue square.');
  });

  it('refuses a fork that says nothing, names an unknown instance, or forks a running run', async () => {
    const parentId = await replay();
    await finished(parentId);
    await expect(call('runs.fork', { runId: parentId })).rejects.toThrow(
      'say where to fork: an edit, or an event number (at)',
    );
    await expect(
      call('runs.fork', { runId: parentId, edits: [{ instance: 'member#9@r2', text: 'x' }] }),
    ).rejects.toThrow(`run ${parentId} has no node instance "member#9@r2"`);
    await expect(call('runs.fork', { runId: parentId, at: 100000 })).rejects.toThrow(
      /^the fork point must be an event number from 2 to \d+/,
    );

    const running = await replay({ startPaused: true });
    await event(running, (e) => e.type === 'paused');
    await expect(call('runs.fork', { runId: running, at: 2 })).rejects.toThrow(
      `run ${running} is still going: fork it once it has ended`,
    );
    await expect(call('runs.delete', { runId: running })).rejects.toThrow(
      `run ${running} is still going: stop it before deleting it`,
    );
    await call('run.control', { runId: running, action: 'cancel' });
    await finished(running);
    await expect(call('runs.diff', { a: parentId, b: 'nope' })).rejects.toThrow(
      'there is no run "nope"',
    );
  });
});

describe('run.blob: the bytes behind an output, for downloading', () => {
  it('gives back an image the run holds, and refuses a hash it does not', async () => {
    const runId = await simulated({ startPaused: true });
    const started = await event(runId, (e) => e.type === 'run.started');
    const image = (started.inputs as Record<string, { $image: string; mime: string }>).image!;
    const blob = await call('run.blob', { runId, hash: image.$image });
    expect(blob.mime).toBe('image/png');
    expect(`data:image/png;base64,${blob.base64}`).toBe(IMAGE);
    await expect(call('run.blob', { runId, hash: '0'.repeat(64) })).rejects.toThrow(
      `run ${runId} holds no blob 000000000000…`,
    );
    await call('run.control', { runId, action: 'cancel' });
    await finished(runId);
    // Once the run has ended, the store still has it.
    expect((await call('run.blob', { runId, hash: image.$image })).base64).toBe(blob.base64);
  });
});

describe('run.start: the keys a live run needs, checked before anything is sent', () => {
  const ARTIST_CRITIC = JSON.parse(
    readFileSync(
      new URL('../../templates/nlsom-artist-critic.society.json', import.meta.url),
      'utf8',
    ),
  ) as Record<string, unknown>;

  it('refuses a live run missing HF_TOKEN, naming it and Settings → Keys, and records nothing', async () => {
    const before = store.listRuns().length;
    const start = call('run.start', {
      document: ARTIST_CRITIC,
      inputs: { object: 'a lighthouse' },
      mode: 'live',
    });
    await expect(start).rejects.toThrow(
      'cannot run: nothing was sent: a key is not set: HF_TOKEN (provider "hf-inference", for node painter); add it in Settings → Keys, or use Run simulated (made-up answers, no key)',
    );
    await expect(start).rejects.not.toThrow(KEY);
    expect(store.listRuns().length).toBe(before);
  });
});
