import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openAgiModules } from './catalogue.ts';
import { byCategory, parseTask, parseTaskFile } from './openagi.ts';
import { planText } from './plan.ts';
import {
  checkOutline,
  planningPrompt,
  planResponseFormat,
  readPlanAnswer,
  repairMessage,
  rulePlan,
} from './planner.ts';

const OPENAGI_DIR = fileURLToPath(
  new URL('../../../shared/external-data/openagi/', import.meta.url),
);
const hasOpenAgi = existsSync(OPENAGI_DIR);
if (!hasOpenAgi)
  console.warn(`skipping the rule planner over OpenAGI's tasks: ${OPENAGI_DIR} is absent`);

const experts = openAgiModules();

describe('reading a planner answer', () => {
  it('takes JSON, inside chatter or a code fence', () => {
    expect(
      readPlanAnswer(
        'Sure! {"branches": [], "chain": ["fill-mask", "machine-translation"]} Hope it helps.',
      ),
    ).toEqual({
      outline: { branches: [], chain: ['fill-mask', 'machine-translation'] },
    });
    expect(
      readPlanAnswer(
        '```json\n{"branches": [["image-deblurring"], []], "chain": ["visual-question-answering"]}\n```',
      ),
    ).toEqual({
      outline: { branches: [['image-deblurring']], chain: ['visual-question-answering'] },
    });
  });

  it("takes OpenAGI's step lines and plan text", () => {
    expect(
      readPlanAnswer('Solution:\nStep 1:Image Super Resolution,\nStep 2: Image Denoising,'),
    ).toEqual({
      outline: { branches: [], chain: ['Image Super Resolution', 'Image Denoising'] },
    });
    expect(
      readPlanAnswer('(Fill Mask)(Fill Mask) Question Answering, Machine Translation'),
    ).toEqual({
      outline: {
        branches: [['Fill Mask'], ['Fill Mask']],
        chain: ['Question Answering', 'Machine Translation'],
      },
    });
  });

  it('says what is wrong with an answer it cannot read', () => {
    expect(readPlanAnswer('{"chain": "fill-mask"}')).toEqual({
      error:
        'the JSON must have the shape {"branches": [["expert-id", ...], ...], "chain": ["expert-id", ...]}',
    });
    expect(readPlanAnswer('{"branches": [], "chain": []}')).toEqual({
      error: 'the chain is empty',
    });
  });
});

describe('checking a plan against the task and the allowed experts', () => {
  const task = parseTask(
    'Given clozed English text, how to translate the text in German step by step?',
    0,
  );

  it('refuses experts the planner was not given, even real ones', () => {
    const onlyTranslation = experts.filter((e) => e.id === 'machine-translation');
    const check = checkOutline(
      { branches: [], chain: ['fill-mask', 'machine-translation'] },
      task,
      onlyTranslation,
    );
    expect(check).toEqual({
      ok: false,
      problems: ['step 1: "fill-mask" is not one of the experts you may use'],
    });
    expect(repairMessage(check.ok ? [] : check.problems)).toBe(
      'That plan cannot run:\n- step 1: "fill-mask" is not one of the experts you may use\nAnswer again with a corrected plan, JSON only.',
    );
  });

  it('offers the model only the allowed ids, in the prompt and the schema', () => {
    const format = planResponseFormat(experts) as {
      json_schema: { schema: { properties: { chain: { items: { enum: string[] } } } } };
    };
    expect(format.json_schema.schema.properties.chain.items.enum).toEqual(experts.map((e) => e.id));
    const [system, user] = planningPrompt(task, experts, 'descriptions');
    expect(system!.content).toContain('JSON only');
    expect(user!.content).toContain(
      '- fill-mask: Restores the word hidden by [MASK] in a sentence. Takes English text. (text: text) → text',
    );
    expect(planningPrompt(task, experts, 'names')[1]!.content).toContain('\n- fill-mask\n');
    expect(planningPrompt(task, experts, 'few-shot')[1]!.content).toContain('Examples:');
  });
});

describe('joining branches', () => {
  const task = parseTask(
    'Given image and English query, how to answer the question in English step by step?',
    0,
  );

  it('sends a branch to the port it fits, and the raw input to the port no branch fits', () => {
    const check = checkOutline(
      { branches: [['fill-mask']], chain: ['visual-question-answering'] },
      task,
      experts,
    );
    expect(
      check.ok && check.plan.steps.find((s) => s.module === 'visual-question-answering')?.inputs,
    ).toEqual({
      question: 'fill_mask',
      image: 'input:image',
    });
  });

  it('names the mismatch when two branches give the same kind of value', () => {
    const check = checkOutline(
      {
        branches: [['image-denoising'], ['image-deblurring']],
        chain: ['visual-question-answering'],
      },
      task,
      experts,
    );
    expect(check.ok ? [] : check.problems).toContain(
      'type mismatch: image_deblurring.image gives image but visual_question_answering.question takes text',
    );
  });

  it('takes an exactly named module it was not given as unknown, never as a similar one', () => {
    const onlyDeblurring = experts.filter(
      (e) => e.id === 'image-deblurring' || e.id === 'visual-question-answering',
    );
    const check = checkOutline(
      { branches: [['Image Denoising']], chain: ['Visual Question Answering'] },
      task,
      onlyDeblurring,
    );
    expect(check).toEqual({
      ok: false,
      problems: ['branch 1, step 1: "Image Denoising" is not one of the experts you may use'],
    });
  });
});

describe('the rule planner', () => {
  it('fills the mask only in the input the task says is clozed', () => {
    const plan = (line: string) => {
      const check = rulePlan(parseTask(line, 0), experts);
      return check.ok
        ? check.plan.steps.map((s) => `${s.module}(${Object.values(s.inputs).join(',')})`)
        : check.problems;
    };
    expect(
      plan(
        'Given clozed English document and English query, how to answer the question in English step by step?',
      ),
    ).toEqual(['fill-mask(input:context)', 'question-answering(fill_mask,input:question)']);
    expect(
      plan(
        'Given English document and clozed English query, how to answer the question in German step by step?',
      ),
    ).toEqual([
      'fill-mask(input:question)',
      'question-answering(fill_mask,input:context)',
      'machine-translation(question_answering)',
    ]);
  });

  it('plans from the task words', () => {
    const check = rulePlan(
      parseTask(
        'Given low-resolutioned noisy blurry grayscale image and English query, how to answer the question in German step by step?',
        0,
      ),
      experts,
    );
    expect(check.ok && planText(check.plan)).toBe(
      'Image Super-Resolution, Image Denoising, Image Deblurring, Colorization, Visual Question Answering, Machine Translation',
    );
  });

  it.skipIf(!hasOpenAgi)('finds a well-typed plan for every one of the 185 tasks', () => {
    const { tasks } = parseTaskFile(readFileSync(`${OPENAGI_DIR}task_description.txt`, 'utf8'));
    const failures = tasks.flatMap((t) => {
      const check = rulePlan(t, experts);
      return check.ok ? [] : [`${t.id}: ${check.problems.join('; ')}`];
    });
    expect(failures).toEqual([]);
    const sizes = [...byCategory(tasks).values()].map((group) => group.length);
    expect(sizes.reduce((a, b) => a + b)).toBe(185);
  });

  it.skipIf(!hasOpenAgi)('agrees with most of the 15 gold plans', () => {
    const tasks = parseTaskFile(
      readFileSync(`${OPENAGI_DIR}train_task_description.txt`, 'utf8'),
    ).tasks;
    const gold = readFileSync(`${OPENAGI_DIR}train_model_sequence.txt`, 'utf8')
      .split('\n')
      .filter(Boolean);
    const same = tasks.filter((t, i) => {
      const check = rulePlan(t, experts);
      const ours = check.ok ? check.plan.steps.map((s) => s.module) : [];
      const theirs = checkOutline({ branches: [], chain: gold[i]!.split(', ') }, t, experts);
      return (
        theirs.ok && JSON.stringify(ours) === JSON.stringify(theirs.plan.steps.map((s) => s.module))
      );
    });
    console.info(`the rule planner matches ${same.length} of 15 gold plans`);
    expect(same.length).toBeGreaterThanOrEqual(10);
  });
});
