/**
 * Resuming a run whose planner ran a plan as a child graph: every cut of the log finishes with
 * the same outputs, asks each expert only what the record does not answer, and keeps each of
 * the plan's events exactly once.
 */

import { describe, expect, it } from 'vitest';
import { compile, edge, graph, input, node, output, registry } from '../../tests/support/graphs.ts';
import { expertProviders } from '../experts/providers.ts';
import type { ExpertProvider, ExpertRequest } from '../experts/types.ts';
import { Cassette } from '../providers/cassette.ts';
import { eventIdentity, type RunOptions, startRun } from './engine.ts';

const society = graph(
  [
    input('document'),
    input('query'),
    node('planner', 'planner', {
      task: 'Given clozed English document and clozed English query, how to answer the question in German step by step?',
      inputs: [
        { name: 'document', modality: 'text' },
        { name: 'query', modality: 'text' },
      ],
      output: 'text',
    }),
    output('answer'),
  ],
  [
    edge('document.value', 'planner.document'),
    edge('query.value', 'planner.query'),
    edge('planner.answer', 'answer.value'),
  ],
);

/** Answers that depend only on the request, after a delay that varies with it. */
function experts() {
  const calls: ExpertRequest[] = [];
  const provider: ExpertProvider = {
    id: 'hf-inference',
    async run(request) {
      calls.push(request);
      const text = Object.values(request.inputs).join(' | ');
      await new Promise((r) => setTimeout(r, text.length % 7));
      return { output: `${request.task}(${text})`, model: request.model, source: 'live' };
    },
  };
  return { calls, providerFor: () => provider };
}

const inputs = {
  document: 'The [MASK] bowl was played in 2016.',
  query: 'When was the [MASK] bowl?',
};

async function runOnce(options: Partial<RunOptions>, record?: Map<string, unknown>) {
  const compiled = await compile(society);
  const fake = experts();
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    inputs,
    expertProviderFor: fake.providerFor,
    ...(record
      ? { onExpertCall: ({ callId, request, result }) => record.set(callId, { request, result }) }
      : {}),
    ...options,
  });
  return { result: await run.result, events: run.events, calls: fake.calls };
}

describe('resuming a run with a plan', () => {
  it('finishes every cut of the log the same, asking only what was not answered', async () => {
    const record = new Map<string, unknown>();
    const reference = await runOnce({}, record);
    expect(reference.result.status, reference.result.error).toBe('succeeded');
    // Fill Mask on both texts, Question Answering joining them, then Machine Translation.
    expect(reference.calls.map((c) => c.task).sort()).toEqual([
      'fill-mask',
      'fill-mask',
      'question-answering',
      'translation',
    ]);
    const expected = new Set(reference.events.map((e) => eventIdentity(e)).filter(Boolean));
    for (let cut = 1; cut < reference.events.length; cut += 3) {
      const prefix = reference.events.slice(0, cut);
      const answered = new Set(
        prefix.flatMap((e) => (e.type === 'expert.response' ? [e.callId] : [])),
      );
      const cassette = Cassette.fromJSON({ format: 'society-cassette', version: 1, entries: [] });
      for (const [callId, call] of record) {
        const { request, result } = call as { request: never; result: never };
        if (answered.has(callId)) cassette.recordExpert(request, result);
      }
      const resumed = await runOnce({
        continueFrom: prefix,
        cassette: { cassette: asStored(cassette), mode: 'replay-then-live' },
      });
      expect(resumed.result.outputs, `cut ${cut}`).toEqual(reference.result.outputs);
      expect(resumed.calls.length, `cut ${cut}`).toBe(4 - answered.size);
      const identities = resumed.events.map((e) => eventIdentity(e)).filter(Boolean);
      expect(new Set(identities).size, `cut ${cut}: duplicated events`).toBe(identities.length);
      expect(new Set(identities), `cut ${cut}: lost events`).toEqual(expected);
    }
  });
});

/**
 * The record as a run reads it back from the store (a cassette file): answers recorded while
 * building it count as given until then, like a live run's own answers.
 */
function asStored(cassette: Cassette): Cassette {
  return Cassette.fromJSON(cassette.toJSON());
}
