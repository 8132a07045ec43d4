/**
 * The engine around expert calls and plans: budgets, breakpoints and edits inside a plan,
 * labels arriving at text ports, and embeddings kept out of events.
 */

import { describe, expect, it } from 'vitest';
import { compile, edge, graph, input, node, output, registry } from '../../tests/support/graphs.ts';
import { expertProviders } from '../experts/providers.ts';
import type { ExpertProvider } from '../experts/types.ts';
import { BlobStore } from './blobs.ts';
import { previewValues, startRun } from './engine.ts';

const translationPlan = graph(
  [
    input('text'),
    node('planner', 'planner', {
      task: 'Given clozed English text, how to translate the text in German step by step?',
      inputs: [{ name: 'text', modality: 'text' }],
      output: 'text',
    }),
    output('answer'),
  ],
  [edge('text.value', 'planner.text'), edge('planner.answer', 'answer.value')],
);

function echo(): { calls: string[]; providerFor: () => ExpertProvider } {
  const calls: string[] = [];
  return {
    calls,
    providerFor: () => ({
      id: 'hf-inference',
      async run(request) {
        calls.push(request.task);
        if (request.task === 'image-classification') {
          return {
            output: [
              { label: 'grizzly bear', score: 0.9 },
              { label: 'brown bear', score: 0.1 },
            ],
            model: request.model,
            source: 'live',
          };
        }
        return {
          output: `${request.task}: ${request.inputs.text}`,
          model: request.model,
          source: 'live',
        };
      },
    }),
  };
}

describe('expert calls in the engine', () => {
  it('counts expert calls against maxCalls', async () => {
    const doc = { ...translationPlan, settings: { budget: { maxCalls: 1 } } };
    const fake = echo();
    const run = startRun(await compile(doc), {
      experts: expertProviders,
      registry,
      inputs: { text: 'A [MASK] bear.' },
      expertProviderFor: fake.providerFor,
    });
    const result = await run.result;
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /budget exceeded: the run may make at most 1 model calls \(expert calls included\)/,
    );
    expect(fake.calls).toEqual(['fill-mask']);
  });

  it("stops at a breakpoint on the document's own node, not at the plan's node of the same id", async () => {
    const fake = echo();
    const run = startRun(await compile(translationPlan), {
      experts: expertProviders,
      registry,
      inputs: { text: 'A [MASK] bear.' },
      expertProviderFor: fake.providerFor,
      breakpoints: [{ node: 'answer' }],
    });
    await new Promise<void>((resolve) => {
      run.subscribe((e) => {
        if (e.type === 'paused') resolve();
      });
    });
    // The plan (which has an `answer` of its own) ran to the end before the pause.
    expect(run.waitingAt).toMatchObject([{ kind: 'node', node: 'answer', instance: 'answer' }]);
    expect(fake.calls).toEqual(['fill-mask', 'translation']);
    run.resume();
    expect((await run.result).outputs).toEqual({
      answer: 'translation: fill-mask: A [MASK] bear.',
    });
  });

  it("refuses to edit a planner's report, which is not its output", async () => {
    const run = startRun(await compile(translationPlan), {
      experts: expertProviders,
      registry,
      inputs: { text: 'A [MASK] bear.' },
      expertProviderFor: echo().providerFor,
      breakpoints: [{ message: { from: 'planner' } }],
    });
    await new Promise<void>((resolve) => {
      run.subscribe((e) => {
        if (e.type === 'paused') resolve();
      });
    });
    expect(() => run.editMessage('planner', 'plan: something else')).toThrow(
      /planner's message reports on its work \(its outputs: answer, plan\)/,
    );
    run.resume();
    expect((await run.result).status).toBe('succeeded');
  });

  it('gives a text port the class of a label, and a list of texts the classes of labels', async () => {
    const doc = graph(
      [
        input('photo', { modality: 'image' }),
        node('classify', 'expert', { module: 'image-classification' }),
        node('names', 'transform', {
          template: '{{ names | join: ", " }}',
          slots: { names: 'list<text>' },
        }),
        output('classes'),
      ],
      [
        edge('photo.value', 'classify.image'),
        edge('classify.labels', 'names.names'),
        edge('names.value', 'classes.value'),
      ],
    );
    const blobs = new BlobStore();
    const photo = blobs.putImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), 'image/png');
    const run = startRun(await compile(doc), {
      experts: expertProviders,
      registry,
      inputs: { photo },
      blobs,
      expertProviderFor: echo().providerFor,
    });
    const result = await run.result;
    expect(result.status, result.error).toBe('succeeded');
    expect(result.outputs).toEqual({ classes: 'grizzly bear, brown bear' });
  });

  it('keeps embeddings out of events: long runs of numbers are described by their shape', () => {
    const vector = Array.from({ length: 384 }, (_, i) => i / 384);
    expect(previewValues({ v: vector, m: [vector, vector], short: [1, 2, 3] })).toEqual({
      v: { $numbers: '384' },
      m: { $numbers: '2×384' },
      short: [1, 2, 3],
    });
  });
});
