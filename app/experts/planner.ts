/**
 * Planning with a language model, in the manner of OpenAGI (Ge et al., Sec. 3.2 and 5.3): the
 * model is shown the task, its inputs and the experts it may use, and answers with a plan.
 * Hosted chat APIs take no token-level constraints, so the constraints are applied around the
 * model instead: a JSON schema whose module fields are an enum of the allowed ids (for servers
 * that honour structured output), mapping of free text to ids by similarity (for those that do
 * not), and validation of the type chain, whose problems go back to the model to repair.
 *
 * Also here: a rule planner that needs no model, reading the task's own words (its
 * degradations and its goal) — a baseline to compare models against.
 */
import type { Modality } from '../schema/modality.ts';
import { type CatalogueEntry, catalogueEntry } from './catalogue.ts';
import {
  type ExpertPlan,
  type PlanInput,
  type PlanOutline,
  PlanSyntaxError,
  parsePlanText,
  planFromOutline,
  planProblems,
} from './plan.ts';

export type PlannerPrompt = 'descriptions' | 'names' | 'few-shot';

export interface PlanningTask {
  description: string;
  inputs: PlanInput[];
  output: Modality;
}

/** The modalities of a port list, as prompts write them: "image → text". */
function signature(entry: CatalogueEntry): string {
  const ins = entry.inputs.map((p) => `${p.name}: ${p.modality}`).join(', ');
  return `(${ins}) → ${entry.outputs[0]!.modality}`;
}

/** Worked examples for the few-shot prompt, in our own words (the task forms are OpenAGI's). */
const EXAMPLES: Array<{ task: string; inputs: string; plan: PlanOutline }> = [
  {
    task: 'Given a low-resolution, noisy, blurry grayscale image, return the regular image.',
    inputs: 'image (image)',
    plan: {
      branches: [],
      chain: ['image-super-resolution', 'image-denoising', 'image-deblurring', 'colorization'],
    },
  },
  {
    task: 'Given English text with a masked word, translate the text into German.',
    inputs: 'text (text)',
    plan: { branches: [], chain: ['fill-mask', 'machine-translation'] },
  },
  {
    task: 'Given a blurry image and an English question about it, answer the question in German.',
    inputs: 'image (image), question (text)',
    plan: {
      branches: [['image-deblurring']],
      chain: ['visual-question-answering', 'machine-translation'],
    },
  },
];

const JSON_SHAPE = '{"branches": [["expert-id", ...], ...], "chain": ["expert-id", ...]}';

/** The planning conversation's opening messages. */
export function planningPrompt(
  task: PlanningTask,
  experts: readonly CatalogueEntry[],
  style: PlannerPrompt,
): Array<{ role: 'system' | 'user'; content: string }> {
  const system = [
    'You plan how to solve a task with expert models. Use only the experts listed, and keep',
    'the plan as short as the task allows: every step must be needed.',
    'A plan is a chain: each expert receives the previous expert’s output. When the task has',
    'several inputs that need preparing (for example a picture and a question), prepare each',
    'in its own branch; the first expert of the chain then takes the branches’ results. An',
    'input no branch prepares goes to that first expert as it is.',
    `Answer with JSON only, in this shape: ${JSON_SHAPE}. Leave "branches" empty for a`,
    'plain chain.',
  ].join(' ');
  const list = experts
    .map((e) => (style === 'names' ? `- ${e.id}` : `- ${e.id}: ${e.description} ${signature(e)}`))
    .join('\n');
  const examples =
    style === 'few-shot'
      ? `Examples:\n${EXAMPLES.map(
          (x) => `Task: ${x.task}\nInputs: ${x.inputs}\nPlan: ${JSON.stringify(x.plan)}`,
        ).join('\n\n')}\n\n`
      : '';
  const inputs = task.inputs.map((i) => `${i.name} (${i.modality})`).join(', ');
  return [
    { role: 'system', content: system },
    {
      role: 'user',
      content: `Experts:\n${list}\n\n${examples}Task: ${task.description}\nInputs: ${inputs}\nThe answer must be: ${task.output}\nPlan:`,
    },
  ];
}

/** OpenAI structured output: the plan's shape, with every module an allowed id. */
export function planResponseFormat(experts: readonly CatalogueEntry[]): Record<string, unknown> {
  const id = { type: 'string', enum: experts.map((e) => e.id) };
  return {
    type: 'json_schema',
    json_schema: {
      name: 'expert_plan',
      strict: true,
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['branches', 'chain'],
        properties: {
          branches: { type: 'array', items: { type: 'array', items: id } },
          chain: { type: 'array', items: id },
        },
      },
    },
  };
}

/**
 * Reads a model's answer into an outline: the JSON shape (inside chatter or a code fence is
 * fine), else OpenAGI's text form ("Step 1: Image Denoising, Step 2: …" or "(A)(B) C, D").
 */
export function readPlanAnswer(text: string): { outline: PlanOutline } | { error: string } {
  const body = text.replace(/^\s*\[simulated\]\s*/, '');
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const value = JSON.parse(body.slice(start, end + 1)) as Record<string, unknown>;
      const names = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
      const branches = value.branches ?? [];
      if (!names(value.chain) || !Array.isArray(branches) || !branches.every(names)) {
        return { error: `the JSON must have the shape ${JSON_SHAPE}` };
      }
      const outline = {
        branches: (branches as string[][]).filter((b) => b.length > 0),
        chain: value.chain as string[],
      };
      if (outline.chain.length === 0) return { error: 'the chain is empty' };
      return { outline };
    } catch {
      // Not JSON after all: read it as text below.
    }
  }
  const steps = body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(plan|solution|answer)\s*:?\s*$/i.test(line))
    .map((line) => line.replace(/^(?:step\s*\d+\s*[:.)-]?|\d+\s*[.):-])\s*/i, ''))
    .join(', ');
  try {
    return { outline: parsePlanText(steps) };
  } catch (error) {
    return { error: error instanceof PlanSyntaxError ? error.message : 'no plan in the answer' };
  }
}

export type PlanCheck = { ok: true; plan: ExpertPlan } | { ok: false; problems: string[] };

/** Maps an outline to allowed experts and checks its types; problems are said to the model. */
export function checkOutline(
  outline: PlanOutline,
  task: PlanningTask,
  experts: readonly CatalogueEntry[],
): PlanCheck {
  let made: ReturnType<typeof planFromOutline>;
  try {
    made = planFromOutline(outline, task.inputs, task.output, experts);
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
  if (!made.ok) {
    return {
      ok: false,
      problems: made.unknown.map(
        (u) => `${u.position}: "${u.name}" is not one of the experts you may use`,
      ),
    };
  }
  const problems = planProblems(made.plan);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, plan: made.plan };
}

/** What to say to the model after a plan was refused. */
export function repairMessage(problems: string[]): string {
  return `That plan cannot run:\n${problems.map((p) => `- ${p}`).join('\n')}\nAnswer again with a corrected plan, JSON only.`;
}

/** Words of a task that call for an expert, in the order its steps run. */
const RESTORATION: Array<{ words: RegExp; module: string }> = [
  { words: /low-resolution(ed)?|low resolution/i, module: 'image-super-resolution' },
  { words: /noisy|noise/i, module: 'image-denoising' },
  { words: /blurry|blurred/i, module: 'image-deblurring' },
  { words: /gr[ae]y(scale)?/i, module: 'colorization' },
];
const GOALS: Array<{ words: RegExp; module: string }> = [
  { words: /caption/i, module: 'image-captioning' },
  { words: /class label|classify/i, module: 'image-classification' },
  { words: /object names|detect/i, module: 'object-detection' },
  { words: /sentiment/i, module: 'sentiment-analysis' },
  { words: /summar/i, module: 'text-summarization' },
];

/**
 * A plan read off the task's own words, with no model: restore what the description says is
 * degraded, fill masks in clozed text, then reach the goal (caption, class, objects, sentiment,
 * summary, an answer, a painting) and translate when the answer is wanted in German. Only
 * allowed experts are used; the result is checked like any other plan.
 */
export function rulePlan(task: PlanningTask, experts: readonly CatalogueEntry[]): PlanCheck {
  const allowed = new Set(experts.map((e) => e.id));
  const pick = (ids: string[]) => ids.filter((id) => allowed.has(id));
  const text = task.description;
  const [goalText = text] = text.split(/,\s*how to\s*/i).slice(1);
  const phrases = inputPhrases(text, task.inputs.length);
  const branches: string[][] = [];
  for (const [i, input] of task.inputs.entries()) {
    // What this input's own words say ("clozed English query"), else the whole task's.
    const words = phrases[i] ?? text;
    const prepare =
      input.modality === 'image'
        ? pick(RESTORATION.filter((r) => r.words.test(words)).map((r) => r.module))
        : /clozed|mask/i.test(words)
          ? pick(['fill-mask'])
          : [];
    branches.push(prepare);
  }
  const chain: string[] = [];
  const hasImage = task.inputs.some((i) => i.modality === 'image');
  if (task.inputs.length > 1 || /answer the question/i.test(goalText)) {
    chain.push(...pick([hasImage ? 'visual-question-answering' : 'question-answering']));
  } else if (task.output === 'image' && !hasImage) {
    chain.push(...pick(['text-to-image-generation']));
  } else {
    const goal = GOALS.find((g) => g.words.test(goalText));
    if (goal) chain.push(...pick([goal.module]));
  }
  if (/\bin (German|Chinese)\b|translate/i.test(goalText))
    chain.push(...pick(['machine-translation']));
  const prepared = branches.flatMap((b, i) => (b.length > 0 ? [i] : []));
  const outline: PlanOutline =
    task.inputs.length > 1
      ? {
          branches: prepared.map((i) => branches[i]!),
          branchInputs: prepared.map((i) => task.inputs[i]!.name),
          chain,
        }
      : { branches: [], chain: [...(branches[0] ?? []), ...chain] };
  if (outline.chain.length === 0) {
    return { ok: false, problems: ['the rule planner found no expert for this task'] };
  }
  return checkOutline(outline, task, experts);
}

/**
 * The words describing each input, when the task lists them as OpenAGI does ("Given clozed
 * English document and English query, how to …"): one phrase per input, in order, or an empty
 * list when the description cannot be split that way.
 */
function inputPhrases(description: string, count: number): string[] {
  const given = /^\s*given\s+(.+?),\s*how to\b/i.exec(description)?.[1];
  const parts = given?.split(/\s+and\s+/i) ?? [];
  return parts.length === count ? parts : [];
}

/** The allowed experts as catalogue entries (unknown ids are left out). */
export function entriesFor(ids: readonly string[]): CatalogueEntry[] {
  return ids.flatMap((id) => {
    const entry = catalogueEntry(id);
    return entry ? [entry] : [];
  });
}
