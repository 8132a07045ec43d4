/**
 * Branches not taken: a router leaves all but one output untaken, and everything that depends
 * only on them is skipped (never started, no request on the wire), whatever joins again runs by
 * its rule (`all` or `any`), and a resumed run skips the same nodes without logging them twice.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Cassette } from '../app/providers/cassette.ts';
import { eventIdentity } from '../app/runtime/engine.ts';
import { agent, edge, eventsOf, graph, input, node, output, run } from './support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** Answers each request with the first word of its prompt in capitals: who was asked. */
async function serve(): Promise<StubOpenAI> {
  stub = await startStubOpenAI({
    respond: (body) => ({
      text: `${String(body.messages.at(-1).content).split(':')[0]!.toUpperCase()} answered`,
    }),
  });
  return stub;
}

const overStub = (s: StubOpenAI, q: string) => ({
  providerOverrides: { openai: { baseUrl: s.url, apiKeyEnv: '' } },
  env: {},
  inputs: { q },
});

/**
 * A triage: urgent tickets go to `fast`, the rest to `slow` and then `polish`; a merge joins
 * the branches (`any`), and `both` reads both branches (`all`, the default).
 */
function triage(mode: 'first' | 'all' = 'first') {
  return graph(
    [
      input('q'),
      node('route', 'router', {
        outputs: ['urgent', 'normal'],
        rules: [
          { output: 'urgent', when: { in: ['urgent', { var: 'value' }] } },
          { output: 'normal', when: { '!!': [{ var: 'value' }] } },
        ],
      }),
      agent('fast', 'fast: {{ t }}'),
      agent('slow', 'slow: {{ t }}'),
      agent('polish', 'polish: {{ t }}'),
      agent('both', 'both: {{ a }} {{ b }}'),
      node('join', 'merge', { inputs: 2, mode }),
      output('fastOut'),
      output('slowOut'),
      output('answer'),
      output('from'),
      output('bothOut'),
    ],
    [
      edge('q.value', 'route.value'),
      edge('route.urgent', 'fast.t'),
      edge('route.normal', 'slow.t'),
      edge('slow.text', 'polish.t'),
      edge('fast.text', 'both.a'),
      edge('polish.text', 'both.b'),
      edge('fast.text', 'join.a'),
      edge('polish.text', 'join.b'),
      edge('fast.text', 'fastOut.value'),
      edge('polish.text', 'slowOut.value'),
      edge('join.value', 'answer.value'),
      edge('join.from', 'from.value'),
      edge('both.text', 'bothOut.value'),
    ],
    { models: { m: { provider: 'openai', model: 'gpt-test' } } },
  );
}

describe('a branch not taken', () => {
  it('never calls the untaken branch, and the run succeeds with the taken one', async () => {
    const s = await serve();
    const { status, outputs, events } = await run(
      triage(),
      overStub(s, 'urgent: the site is down'),
    );
    expect(status).toBe('succeeded');
    expect(s.count()).toBe(1);
    expect(s.requests[0].messages.at(-1).content).toContain('fast:');
    expect(outputs).toEqual({ fastOut: 'FAST answered', answer: 'FAST answered', from: ['a'] });
    const skipped = eventsOf(events, 'node.skipped');
    expect(skipped.map((e) => e.node).sort()).toEqual(
      ['both', 'bothOut', 'polish', 'slow', 'slowOut'].sort(),
    );
    expect(skipped.find((e) => e.node === 'slow')).toMatchObject({
      from: 'route.normal',
      reason: 'rule 1 chose "urgent"',
    });
    // Never started: no node.started for any skipped node.
    const started = new Set(eventsOf(events, 'node.started').map((e) => e.node));
    for (const e of skipped) expect(started.has(e.node)).toBe(false);
    const routed = eventsOf(events, 'node.finished').find((e) => e.node === 'route')!;
    expect(Object.keys(routed.outputs)).toEqual(['urgent']);
    expect(routed.notTaken).toEqual({
      normal: 'rule 1 chose "urgent"',
      else: 'rule 1 chose "urgent"',
    });
  });

  it('takes the other branch for other input; `merge` all lists what arrived', async () => {
    const s = await serve();
    const { status, outputs } = await run(triage('all'), overStub(s, 'a question about fonts'));
    expect(status).toBe('succeeded');
    // slow, then polish: two requests, and `fast` none.
    expect(s.count()).toBe(2);
    expect(s.requests.map((r) => r.messages.at(-1).content.split(':')[0])).toEqual([
      'slow',
      'polish',
    ]);
    expect(outputs).toEqual({
      slowOut: 'POLISH answered',
      answer: ['POLISH answered'],
      from: ['b'],
    });
  });

  it('takes `else` when no rule matches; a merge none of whose inputs arrived is skipped too', async () => {
    const s = await serve();
    const { status, outputs, events } = await run(triage(), overStub(s, ''));
    expect(status).toBe('succeeded');
    expect(s.count()).toBe(0);
    expect(outputs).toEqual({});
    expect(eventsOf(events, 'node.skipped').map((e) => e.node)).toContain('join');
    expect(eventsOf(events, 'node.skipped').find((e) => e.node === 'fast')?.reason).toBe(
      'no rule matched',
    );
  });

  it('skips every copy of a replicated node on the branch, and what reads their list', async () => {
    const s = await serve();
    const doc = graph(
      [
        input('q'),
        node('route', 'router', { outputs: ['panel'], rules: [] }),
        agent('panel', 'panel: {{ t }}', {
          replicate: { items: ['a', 'b', 'c'], as: 'who' },
        }),
        agent('chair', 'chair: {{ views }}', { slots: { views: 'list<text>' } }),
        output('answer'),
      ],
      [
        edge('q.value', 'route.value'),
        edge('route.panel', 'panel.t'),
        edge('panel.text', 'chair.views'),
        edge('chair.text', 'answer.value'),
      ],
      { models: { m: { provider: 'openai', model: 'gpt-test' } } },
    );
    const { status, outputs, events } = await run(doc, overStub(s, 'anything'));
    expect(status).toBe('succeeded');
    expect(s.count()).toBe(0);
    expect(outputs).toEqual({});
    expect(eventsOf(events, 'node.skipped').map((e) => e.instance)).toEqual([
      'panel#0',
      'panel#1',
      'panel#2',
      'chair',
      'answer',
    ]);
  });

  it('skips the same nodes on a resume, logging each skip once', async () => {
    const s = await serve();
    const record = new Map<string, { request: unknown; result: unknown }>();
    const first = await run(triage(), {
      ...overStub(s, 'tell me about fonts'),
      onModelCall: ({ callId, request, result }) => record.set(callId, { request, result }),
    });
    expect(first.status).toBe('succeeded');
    const skipAt = first.events.findIndex((e) => e.type === 'node.skipped');
    const cassette = Cassette.fromJSON({ format: 'society-cassette', version: 1, entries: [] });
    for (const call of record.values())
      cassette.record(call.request as never, call.result as never);
    for (const cut of [skipAt + 1, first.events.length - 1]) {
      const before = s.count();
      const resumed = await run(triage(), {
        ...overStub(s, 'tell me about fonts'),
        continueFrom: first.events.slice(0, cut),
        cassette: { cassette: Cassette.fromJSON(cassette.toJSON()), mode: 'replay-then-live' },
      });
      expect(resumed.status, `cut ${cut}`).toBe('succeeded');
      expect(resumed.outputs, `cut ${cut}`).toEqual(first.outputs);
      expect(s.count(), `cut ${cut}: no new request`).toBe(before);
      const identities = resumed.events.map((e) => eventIdentity(e)).filter(Boolean);
      expect(new Set(identities).size, `cut ${cut}: duplicated events`).toBe(identities.length);
      expect(eventsOf(resumed.events, 'node.skipped').map((e) => e.node)).toEqual(
        eventsOf(first.events, 'node.skipped').map((e) => e.node),
      );
    }
  });
});

describe('the tie-judge template', () => {
  const doc = JSON.parse(
    readFileSync(new URL('../templates/tie-judge.society.json', import.meta.url), 'utf8'),
  );
  /** Voters answer as `ballots` says for their role; the judge says yes. */
  async function voters(ballots: { engineer: string; shopkeeper: string }) {
    stub = await startStubOpenAI({
      respond: (body) => {
        const system = String(body.messages[0].content);
        if (system.includes('judge')) return { text: 'yes: the repairs cannot wait' };
        return { text: system.includes('engineer') ? ballots.engineer : ballots.shopkeeper };
      },
    });
    return run(doc, {
      providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } },
      env: {},
      inputs: { question: 'Close the bridge?' },
    });
  }

  it('asks the judge only when the ballots tie, counted on the server', async () => {
    const agree = await voters({ engineer: 'yes', shopkeeper: 'yes' });
    expect(agree.status).toBe('succeeded');
    expect(stub!.count()).toBe(2);
    expect(agree.outputs.decision).toBe('yes');
    expect(eventsOf(agree.events, 'node.skipped').map((e) => e.node)).toEqual(['judge']);
    await stub!.close();

    const tie = await voters({ engineer: 'yes', shopkeeper: 'no' });
    expect(tie.status).toBe('succeeded');
    expect(stub!.count()).toBe(3);
    expect(tie.outputs.decision).toBe('yes: the repairs cannot wait');
    expect(eventsOf(tie.events, 'node.skipped')).toEqual([]);
  });
});
