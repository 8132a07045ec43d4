import { describe, expect, it } from 'vitest';
import { FakeProvider, type FakeScript } from '../../tests/support/fake-provider.ts';
import {
  agent,
  compile,
  edge,
  graph,
  input,
  node,
  output,
  registry,
} from '../../tests/support/graphs.ts';
import { expertProviders } from '../experts/providers.ts';
import { Cassette } from '../providers/cassette.ts';
import { eventIdentity, type RunOptions, startRun } from './engine.ts';
import type { RunEvent } from './events.ts';

/** A small NLSOM-shaped society: 3 rounds of an organizer and 3 members, a summary, a leader. */
const society = graph(
  [
    input('question'),
    node('storm', 'mindstorm', { maxRounds: 3, members: ['member'], leader: 'leader' }),
    agent(
      'organizer',
      'ORGANIZER {{ question }} so far: {% for m in loop.transcript %}{{ m.text }}; {% endfor %}',
      {},
      { parentId: 'storm' },
    ),
    agent(
      'member',
      'MEMBER {{ who }}: {{ q }}',
      { replicate: { items: ['ann', 'bob', 'cy'], as: 'who' } },
      { parentId: 'storm' },
    ),
    node('summary', 'summarize', { mode: 'concatenate', stage: 'gather' }, { parentId: 'storm' }),
    agent(
      'leader',
      'LEADER {{ question }} {{ notes }}',
      { stage: 'decide' },
      { parentId: 'storm' },
    ),
    output('answer'),
  ],
  [
    edge('question.value', 'organizer.question'),
    edge('question.value', 'leader.question'),
    edge('organizer.text', 'member.q'),
    edge('summary.summary', 'leader.notes'),
    edge('leader.text', 'answer.value'),
  ],
);

/** Answers depend only on the prompt; delays vary so completion order differs run to run. */
const script: FakeScript = (call) => ({
  text: `re ${call.user.length} ${call.user.slice(0, 12)}`,
  delayMs: (call.user.length * 7) % 11,
});

const inputs = { question: 'Which colour? (a) red (b) blue' };

async function runRecorded(
  options: Partial<RunOptions>,
  record: Map<string, { request: unknown; result: unknown }>,
) {
  const compiled = await compile(society);
  const fake = new FakeProvider(script);
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    inputs,
    providerFor: fake.providerFor,
    onModelCall: ({ callId, request, result }) => record.set(callId, { request, result }),
    ...options,
  });
  const result = await run.result;
  return { result, events: run.events, fake };
}

describe('continuing a run from its log', () => {
  it('finishes every cut of the log with the same outputs, paying only for unanswered calls', async () => {
    const fullRecord = new Map<string, { request: unknown; result: unknown }>();
    const reference = await runRecorded({}, fullRecord);
    expect(reference.result.status).toBe('succeeded');
    const total = reference.fake.calls.length;
    expect(total).toBe(3 * 4 + 1);

    const cuts = [1, 2, 5, 9, 17, 30, 44, 61, reference.events.length - 1];
    for (const cut of cuts) {
      const prefix = reference.events.slice(0, cut);
      // What a crash at this point leaves durable: the calls whose answer reached the log.
      const answered = new Set(
        prefix
          .filter((e) => e.type === 'model.response')
          .map((e) => (e as { callId: string }).callId),
      );
      const cassette = Cassette.fromJSON({ format: 'society-cassette', version: 1, entries: [] });
      for (const [callId, call] of fullRecord)
        if (answered.has(callId)) cassette.record(call.request as never, call.result as never);

      const resumed = await runRecorded(
        {
          continueFrom: prefix,
          cassette: { cassette: asStored(cassette), mode: 'replay-then-live' },
        },
        new Map(),
      );
      expect(resumed.result.outputs, `cut ${cut}`).toEqual(reference.result.outputs);
      expect(resumed.fake.calls.length, `cut ${cut}`).toBe(total - answered.size);

      const log: RunEvent[] = resumed.events;
      expect(
        log.map((e) => e.seq),
        `cut ${cut}`,
      ).toEqual(log.map((_, i) => i + 1));
      const identities = log.map((e) => eventIdentity(e)).filter(Boolean);
      expect(new Set(identities).size, `cut ${cut}: duplicated events`).toBe(identities.length);
      const expected = reference.events.map((e) => eventIdentity(e)).filter(Boolean);
      expect(new Set(identities), `cut ${cut}: lost events`).toEqual(new Set(expected));
      expect(log.at(-1)?.type).toBe('run.finished');
    }
  });

  it('reuses the answers people already gave', async () => {
    const doc = graph(
      [
        input('topic'),
        node('p', 'human', { name: 'opinion', prompt: 'About {{ topic }}?' }),
        output('said'),
      ],
      [edge('topic.value', 'p.topic'), edge('p.text', 'said.value')],
    );
    const compiled = await compile(doc);
    const first = startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: { topic: 'tea' },
      humanAnswers: { opinion: 'lovely' },
    });
    await first.result;
    const cut = first.events.findIndex((e) => e.type === 'human.response') + 1;
    const resumed = startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: { topic: 'tea' },
      continueFrom: first.events.slice(0, cut),
      askHuman: () => Promise.reject(new Error('must not ask again')),
    });
    expect((await resumed.result).outputs).toEqual({ said: 'lovely' });
  });

  it('lets an override replace what one instance produced', async () => {
    const record = new Map<string, { request: unknown; result: unknown }>();
    const reference = await runRecorded({}, record);
    const cassette = Cassette.fromJSON({ format: 'society-cassette', version: 1, entries: [] });
    for (const call of record.values())
      cassette.record(call.request as never, call.result as never);
    const edited = await runRecorded(
      {
        cassette: { cassette: asStored(cassette), mode: 'replay-then-live' },
        overrides: { 'member#1@r2': { text: 'EDITED' } },
      },
      new Map(),
    );
    const messages = edited.events.filter((e) => e.type === 'message' && e.from === 'member#1@r2');
    expect(messages.map((m) => (m as { text: string }).text)).toEqual(['EDITED']);
    // Rounds 1 and 2 come from the record (the edited member is not called at all); the edit
    // changes round 3's organizer prompt, so round 3 and the leader go live: 1 + 3 + 1 calls.
    expect(edited.fake.calls.length).toBe(5);
    expect(edited.fake.calls.filter((c) => c.user.startsWith('ORGANIZER'))).toHaveLength(1);
    expect(edited.fake.calls[0]?.user).toContain('EDITED');
    expect(edited.result.outputs).not.toEqual(reference.result.outputs);
  });
});

/**
 * The record as a run reads it back from the store (a cassette file): answers recorded while
 * building it count as given until then, like a live run's own answers.
 */
function asStored(cassette: Cassette): Cassette {
  return Cassette.fromJSON(cassette.toJSON());
}
