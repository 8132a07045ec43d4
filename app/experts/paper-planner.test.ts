import { describe, expect, it } from 'vitest';
import { taskGraph } from './benchmark.ts';
import { catalogueEntry, openAgiModules } from './catalogue.ts';
import { parseTask } from './openagi.ts';
import { OPENAGI_FEW_SHOT } from './openagi-few-shot.ts';
import { paperPlan, paperPlanningPrompt, stepLines } from './paper-planner.ts';
import { checkOutline } from './planner.ts';

/** A bag-of-words sentence vector: texts sharing words are close, as a sentence model makes them. */
const VOCAB = [
  ...new Set(
    openAgiModules().flatMap((e) =>
      e.title
        .toLowerCase()
        .split(/[^a-z]+/)
        .filter(Boolean),
    ),
  ),
];
const embed = async (text: string) => {
  const words = text.toLowerCase().split(/[^a-z]+/);
  return VOCAB.map((w) => words.filter((x) => x === w).length);
};
const title = (id: string) => catalogueEntry(id)?.title ?? id;
const experts = openAgiModules();
const restore = {
  description: 'Given noisy blurry image, how to return the regular image step by step?',
  inputs: [{ name: 'image', modality: 'image' as const }],
  output: 'image' as const,
};

describe("OpenAGI's paper planner protocols", () => {
  it('zero-shot names no module; few-shot gives the 15 worked examples of OpenAGI’s script', () => {
    const zero = paperPlanningPrompt(restore, 'paper-zero-shot', title)[0]!.content;
    for (const e of experts) expect(zero.toLowerCase()).not.toContain(e.title.toLowerCase());
    const few = paperPlanningPrompt(restore, 'paper-few-shot', title)[0]!.content;
    expect(few.match(/^Problem:/gm)).toHaveLength(OPENAGI_FEW_SHOT.length + 1);
    expect(OPENAGI_FEW_SHOT).toHaveLength(15);
    // Every shipped plan is one OpenAGI's checks accept: its types chain.
    for (const x of OPENAGI_FEW_SHOT) {
      const first = catalogueEntry(x.plan[0]!)!;
      const last = catalogueEntry(x.plan.at(-1)!)!;
      const check = checkOutline(
        { branches: [], chain: x.plan },
        {
          description: x.task,
          inputs: [{ name: 'x', modality: first.inputs[0]!.modality }],
          output: last.outputs[0]!.modality,
        },
        experts,
      );
      expect(check.ok, `${x.task}: ${'problems' in check ? check.problems : ''}`).toBe(true);
    }
  });

  it('maps each "Step" line to the most similar module, drops repeats, and checks the types', async () => {
    const answer =
      'Here is how:\nStep 1: remove the noise (denoising of the image)\n**Step 2:** image deblurring\nStep 3: deblurring again\nThat is all.';
    expect(stepLines(answer)).toHaveLength(3);
    const { check, matches } = await paperPlan(answer, restore, experts, embed);
    expect(matches.map((m) => m.module)).toEqual([
      'image-denoising',
      'image-deblurring',
      'image-deblurring',
    ]);
    expect(check.ok && check.plan.steps.map((s) => s.module)).toEqual([
      'image-denoising',
      'image-deblurring',
    ]);
  });

  it('finds an invalid plan when the types do not chain or no step is written', async () => {
    const caption = await paperPlan('Step 1: Image Captioning', restore, experts, embed);
    expect(caption.check.ok).toBe(false);
    const none = await paperPlan('Just fix it.', restore, experts, embed);
    expect(none.check).toEqual({
      ok: false,
      problems: ['the answer has no line beginning with "Step"'],
    });
  });
});

describe('the task graph under a paper protocol', () => {
  const task = parseTask('Given noisy image, how to return the regular image step by step?', 0);
  const model = { profile: 'planner', provider: 'openai', model: 'gpt-3.5-turbo' };

  it("gives the planner the protocol and outputs its plan, so an invalid plan's reason is kept", () => {
    const graph = taskGraph(task, { model, protocol: 'paper-zero-shot' });
    expect(graph.nodes.find((n) => n.id === 'planner')!.data).toMatchObject({
      protocol: 'paper-zero-shot',
    });
    expect(graph.edges).toContainEqual(
      expect.objectContaining({ source: 'planner', sourceHandle: 'plan', target: 'plan' }),
    );
    expect(taskGraph(task, { model }).nodes.some((n) => n.id === 'plan')).toBe(false);
  });

  it("outputs the metric's definition when the metric node has one", () => {
    const names = (outputs: string[]) =>
      taskGraph(task, { metricOutputs: outputs })
        .nodes.filter((n) => n.type === 'output')
        .map((n) => n.data.name);
    expect(names(['score', 'report'])).toEqual(['answer', 'score', 'report']);
    expect(names(['score', 'report', 'definition'])).toEqual([
      'answer',
      'score',
      'report',
      'definition',
    ]);
  });
});
