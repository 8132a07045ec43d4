import { describe, expect, it } from 'vitest';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { estimatePromptTokens } from '../../app/providers/text.ts';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { estimateOf, sentRequests } from '../../tests/support/estimates.ts';
import { compile, edge, graph, input, node, output } from '../../tests/support/graphs.ts';

const MODELS = { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 100 } };

describe('the planner estimate', () => {
  const TASK =
    'Given noisy blurry grayscale image and English query, how to answer the question in German step by step?';
  const planner = (data: Record<string, unknown> = {}) =>
    graph(
      [
        input('image', { modality: 'image' }),
        input('question'),
        node('planner', 'planner', {
          model: 'm',
          task: TASK,
          inputs: [
            { name: 'image', modality: 'image' },
            { name: 'question', modality: 'text' },
          ],
          ...data,
        }),
        output('answer'),
      ],
      [
        edge('image.value', 'planner.image'),
        edge('question.value', 'planner.question'),
        edge('planner.answer', 'answer.value'),
      ],
      { models: { m: { ...MODELS.m, maxTokens: 300 } } },
    );

  it('estimates the first attempt as exactly the planning prompt, without the image', async () => {
    const blobs = new BlobStore();
    const image = blobs.putImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), 'image/png');
    const [first] = await sentRequests(planner(), { image, question: 'What number is it?' }, blobs);
    const plan = (await compile(planner())).plan;
    const e = estimateRun(plan, DEFAULT_PRICES, {
      imageTokens: 1105,
      inputs: { question: 'What number is it?' },
    });
    const row = e.byNode.find((r) => r.node === 'planner' && !r.phase)!;
    expect(row).toMatchObject({ calls: 1, promptTokens: estimatePromptTokens(first!) });
  });

  it('counts repairs in the worst case only, and the plan’s expert calls apart', async () => {
    const e = await estimateOf(planner({ maxAttempts: 3 }));
    expect(e.firstAttempts.calls - e.firstAttempts.expertCalls).toBe(1);
    expect(e.byNode.find((r) => r.phase === 'repair')).toMatchObject({ calls: 2, retry: true });
    // The rule plan for the task: denoise, deblur, colorize, then answer and translate.
    expect(e.expertCalls).toBeGreaterThanOrEqual(3);
    expect(e.byNode.filter((r) => r.expert).every((r) => r.promptTokens === 0)).toBe(true);
  });

  it('under the paper zero-shot protocol: one model call, no repair, and the mapping’s embeddings', async () => {
    const e = await estimateOf(planner({ protocol: 'paper-zero-shot', maxAttempts: 3 }));
    expect(e.byNode.find((r) => r.phase === 'repair')).toBeUndefined();
    expect(e.byNode.filter((r) => r.node === 'planner' && !r.expert)).toHaveLength(1);
    // The 15 module names and at least one step are embedded to map the answer.
    const mapping = e.byNode.find((r) => r.phase === 'mapping');
    expect(mapping?.calls).toBeGreaterThanOrEqual(16);
  });
});
