import { describe, expect, it } from 'vitest';
import { deferred, FakeProvider } from '../../tests/support/fake-provider.ts';
import {
  agent,
  edge,
  eventsOf,
  graph,
  input,
  nextEvent,
  node,
  output,
  start,
} from '../../tests/support/graphs.ts';
import type { Breakpoint } from './debugger.ts';
import type { Run } from './engine.ts';
import type { RunEvent } from './events.ts';

/** q → a → b → c → answer */
const chain = () =>
  graph(
    [
      input('q'),
      agent('a', 'a {{ q }}'),
      agent('b', 'b {{ x }}'),
      agent('c', 'c {{ x }}'),
      output('answer'),
    ],
    [
      edge('q.value', 'a.q'),
      edge('a.text', 'b.x'),
      edge('b.text', 'c.x'),
      edge('c.text', 'answer.value'),
    ],
  );

/** q → three parallel agents → a concatenating join → answer */
const fan = () =>
  graph(
    [
      input('q'),
      agent('x', 'x {{ q }}'),
      agent('y', 'y {{ q }}'),
      agent('z', 'z {{ q }}'),
      node('join', 'summarize', { mode: 'concatenate' }),
      output('answer'),
    ],
    [
      edge('q.value', 'x.q'),
      edge('q.value', 'y.q'),
      edge('q.value', 'z.q'),
      edge('x.text', 'join.text'),
      edge('y.text', 'join.text'),
      edge('z.text', 'join.text'),
      edge('join.summary', 'answer.value'),
    ],
  );

/** Resolves with the next pause after event `seq`, or undefined if the run ends first. */
async function nextPause(r: Run, after: number): Promise<RunEvent | undefined> {
  return Promise.race([
    nextEvent(r, 'paused', (e) => e.seq > after),
    r.result.then(() => undefined),
  ]);
}

const count = (r: Run, type: RunEvent['type']) => r.events.filter((e) => e.type === type).length;

describe('debugger', () => {
  it('startPaused holds the run at the first checkpoint until resume', async () => {
    const fake = new FakeProvider();
    const r = await start(chain(), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      startPaused: true,
    });
    const paused = await nextEvent(r, 'paused');
    expect(paused).toMatchObject({ reason: 'user', at: { kind: 'node', node: 'q' } });
    expect(r.paused).toBe(true);
    expect(fake.calls).toHaveLength(0);
    expect(count(r, 'node.started')).toBe(0);
    r.resume();
    expect((await r.result).status).toBe('succeeded');
    expect(fake.calls).toHaveLength(3);
    expect(eventsOf(r.events, 'resumed')).toHaveLength(1);
  });

  it('pauses before a node with a breakpoint, which starts only on resume', async () => {
    const fake = new FakeProvider();
    const r = await start(chain(), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      breakpoints: [{ node: 'b' }],
    });
    const paused = await nextEvent(r, 'paused');
    expect(paused).toMatchObject({ reason: 'breakpoint', at: { kind: 'node', node: 'b' } });
    const started = () => eventsOf(r.events, 'node.started').map((e) => e.node);
    expect(started()).toEqual(['q', 'a']);
    expect(fake.calls).toHaveLength(1);
    r.resume();
    await r.result;
    expect(started()).toEqual(['q', 'a', 'b', 'c', 'answer']);
  });

  it('pauses at round 2 of a mindstorm', async () => {
    const doc = graph([
      node('storm', 'mindstorm', { maxRounds: 3 }),
      agent('thinker', 'Round {{ loop.round }}', {}, { parentId: 'storm' }),
    ]);
    const fake = new FakeProvider();
    const r = await start(doc, { providerFor: fake.providerFor, breakpoints: [{ round: 2 }] });
    const paused = await nextEvent(r, 'paused');
    expect(paused).toMatchObject({
      reason: 'breakpoint',
      at: { kind: 'round', loop: 'storm', round: 2 },
    });
    expect(fake.calls.map((c) => c.user)).toEqual(['Round 1']);
    expect(eventsOf(r.events, 'node.started').filter((e) => e.round === 2)).toEqual([]);
    r.resume();
    expect((await r.result).status).toBe('succeeded');
    expect(fake.calls.map((c) => c.user)).toEqual(['Round 1', 'Round 2', 'Round 3']);
  });

  it('pauses once per round for every copy of a replicated loop, or for one copy when asked', async () => {
    const doc = graph([
      node('pair', 'group', { replicate: { items: ['a', 'b', 'c'], as: 'style' } }),
      node('storm', 'mindstorm', { maxRounds: 3 }, { parentId: 'pair' }),
      agent('thinker', '{{ style }} round {{ loop.round }}', {}, { parentId: 'storm' }),
    ]);
    /** Runs with `breakpoints`, pressing Continue at every pause; the pauses met. */
    const pausesWith = async (breakpoints: Breakpoint[]) => {
      const r = await start(doc, { simulate: true, breakpoints });
      const seen = new Set<number>();
      r.subscribe((e) => {
        if (e.type === 'paused' && !seen.has(e.seq)) {
          seen.add(e.seq);
          queueMicrotask(() => r.resume());
        }
      });
      expect((await r.result).status).toBe('succeeded');
      // Every copy ran every round all the same.
      expect(eventsOf(r.events, 'node.started').filter((e) => e.node === 'thinker')).toHaveLength(
        9,
      );
      return eventsOf(r.events, 'paused');
    };
    const all = await pausesWith([{ round: 2 }]);
    expect(all).toHaveLength(1);
    expect(all[0]!.at).toMatchObject({ kind: 'round', round: 2 });
    // "This copy only": the copy's own instance path.
    const one = await pausesWith([{ round: 2, loop: 'pair#1/storm' }]);
    expect(one).toHaveLength(1);
    expect(one[0]!.at).toMatchObject({ kind: 'round', loop: 'pair#1/storm', round: 2 });
    // A breakpoint naming the loop without a copy holds once per round for all its copies.
    expect(await pausesWith([{ round: 2, loop: 'pair/storm' }, { round: 3 }])).toHaveLength(2);
  });

  it("step('node') lets exactly one node start", async () => {
    const r = await start(fan(), { simulate: true, inputs: { q: '?' }, startPaused: true });
    let pause = await nextPause(r, 0);
    const perStep: number[] = [];
    while (pause) {
      const before = count(r, 'node.started');
      r.step('node');
      pause = await nextPause(r, pause.seq);
      perStep.push(count(r, 'node.started') - before);
      if (pause) expect(pause).toMatchObject({ reason: 'step', at: { kind: 'node' } });
    }
    // q, x, y, z, join, answer: one node per step.
    expect(perStep).toEqual([1, 1, 1, 1, 1, 1]);
    expect((await r.result).status).toBe('succeeded');
  });

  it("step('message') lets exactly one message through", async () => {
    const r = await start(fan(), { simulate: true, inputs: { q: '?' }, startPaused: true });
    let pause = await nextPause(r, 0);
    // The first step runs up to the first message and holds it.
    r.step('message');
    pause = await nextPause(r, pause!.seq);
    expect(pause).toMatchObject({ reason: 'step', at: { kind: 'message' } });
    expect(count(r, 'message')).toBe(0);
    const perStep: number[] = [];
    while (pause) {
      const before = count(r, 'message');
      r.step('message');
      pause = await nextPause(r, pause.seq);
      perStep.push(count(r, 'message') - before);
    }
    // x, y, z and join each send one message.
    expect(perStep).toEqual([1, 1, 1, 1]);
    expect((await r.result).status).toBe('succeeded');
  });

  it('pause() while running lets calls in flight finish but starts nothing new', async () => {
    const hold = deferred();
    const fake = new FakeProvider((call) => ({
      text: 'ok',
      ...(call.index === 0 ? { after: hold.promise } : {}),
    }));
    const r = await start(chain(), { providerFor: fake.providerFor, inputs: { q: '?' } });
    await nextEvent(r, 'model.request');
    r.pause();
    hold.resolve();
    const paused = await nextEvent(r, 'paused');
    expect(paused.reason).toBe('user');
    expect(eventsOf(r.events, 'model.response')).toHaveLength(1);
    expect(eventsOf(r.events, 'node.started').map((e) => e.node)).toEqual(['q', 'a']);
    expect(r.paused).toBe(true);
    r.resume();
    expect((await r.result).status).toBe('succeeded');
    expect(eventsOf(r.events, 'node.started').map((e) => e.node)).toEqual([
      'q',
      'a',
      'b',
      'c',
      'answer',
    ]);
  });

  it('cancel() ends a paused run', async () => {
    const fake = new FakeProvider();
    const r = await start(chain(), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      startPaused: true,
    });
    await nextEvent(r, 'paused');
    r.cancel();
    expect((await r.result).status).toBe('cancelled');
    expect(fake.calls).toHaveLength(0);
  });
});

describe('breakpoints on events and messages, and editing a held message', () => {
  it('pauses right after a vote tally', async () => {
    const doc = graph(
      [
        input('q'),
        agent('v', 'vote on {{ q }}', { replicate: { items: [1, 2, 3] } }),
        node('ballot', 'vote', {}),
        agent('after', 'then {{ w }}'),
        output('answer'),
      ],
      [
        edge('q.value', 'v.q'),
        edge('v.text', 'ballot.ballots'),
        edge('ballot.winner', 'after.w'),
        edge('after.text', 'answer.value'),
      ],
    );
    const fake = new FakeProvider(() => 'yes');
    const r = await start(doc, {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      breakpoints: [{ event: 'report', report: 'tally' }],
    });
    const paused = await nextEvent(r, 'paused');
    expect(paused.type === 'paused' && paused.at).toMatchObject({ kind: 'node', node: 'after' });
    expect(eventsOf(r.events, 'report')).toHaveLength(1);
    expect(fake.calls).toHaveLength(3); // the node after the vote has not been called
    r.resume();
    expect((await r.result).status).toBe('succeeded');
    expect(fake.calls).toHaveLength(4);

    // A breakpoint on another kind of report never holds this run.
    const other = await start(doc, {
      providerFor: new FakeProvider(() => 'yes').providerFor,
      inputs: { q: '?' },
      breakpoints: [{ event: 'report', report: 'flip' }],
    });
    expect((await other.result).status).toBe('succeeded');
    expect(count(other, 'paused')).toBe(0);
  });

  it('stops before a message that matches a condition, and delivers the edit', async () => {
    const fake = new FakeProvider((call) =>
      call.user.startsWith('b') ? 'b says LIES' : `${call.user} ok`,
    );
    const r = await start(chain(), {
      providerFor: fake.providerFor,
      inputs: { q: 'go' },
      breakpoints: [{ message: { contains: 'lies' } }],
    });
    const paused = await nextEvent(r, 'paused');
    expect(paused.type === 'paused' && paused.at).toMatchObject({
      kind: 'message',
      instance: 'b',
      text: 'b says LIES',
    });
    expect(r.waitingAt).toEqual([expect.objectContaining({ kind: 'message', instance: 'b' })]);
    r.editMessage('b', 'b says the truth');
    r.resume();
    const result = await r.result;
    expect(eventsOf(r.events, 'message').find((m) => m.from === 'b')?.text).toBe(
      'b says the truth',
    );
    // The edit is b's output, so c was asked about it.
    expect(fake.calls.at(-1)?.user).toBe('c b says the truth');
    expect(result.outputs.answer).toBe('c b says the truth ok');
  });

  it('refuses to edit a message that is not waiting', async () => {
    const fake = new FakeProvider(() => 'ok');
    const r = await start(chain(), {
      providerFor: fake.providerFor,
      inputs: { q: 'go' },
      startPaused: true,
    });
    await nextEvent(r, 'paused');
    expect(() => r.editMessage('a', 'x')).toThrow(/no message from a is waiting/);
    r.resume();
    await r.result;
  });
});

describe("setting a held node's output", () => {
  it('skips the node and passes the given output on', async () => {
    const fake = new FakeProvider((call) => `${call.user} ok`);
    const r = await start(chain(), {
      providerFor: fake.providerFor,
      inputs: { q: 'go' },
      breakpoints: [{ node: 'b' }],
    });
    await nextEvent(r, 'paused');
    r.overrideOutput('b', { text: 'given' });
    r.resume();
    const result = await r.result;
    expect(fake.calls.map((c) => c.user)).toEqual(['a go', 'c given']);
    expect(result.outputs.answer).toBe('c given ok');
    expect(() => r.overrideOutput('b', { text: 'late' })).toThrow(/not waiting to start/);
  });
});
