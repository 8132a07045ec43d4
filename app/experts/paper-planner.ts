/**
 * OpenAGI's own planning protocols (Ge et al., Sec. 5.3–5.4, Table 1), beside our
 * schema-constrained planner:
 * - `paper-zero-shot`: the model sees the task alone, no list of models (the paper: "only task
 *   descriptions of benchmark tasks were fed into LLMs");
 * - `paper-few-shot`: the same after OpenAGI's 15 worked examples (openagi-few-shot.ts).
 * In both the model answers in free text; its lines that begin with "Step" are each mapped to
 * the module whose name is most similar by sentence-embedding cosine, as OpenAGI's code does
 * (research/benchmark_tasks/agi_utils.py `match_module_seq`: all-MiniLM-L6-v2 embeddings of the
 * step and of the 15 module names, argmax, repeats dropped keeping the first). There is no
 * retry: a plan whose types do not chain, or an answer with no step, is invalid, and the paper
 * scores such a task 0 (zero_shot_schema_gpt.py).
 */
import type { CatalogueEntry } from './catalogue.ts';
import { OPENAGI_FEW_SHOT } from './openagi-few-shot.ts';
import type { PlanOutline } from './plan.ts';
import { checkOutline, type PlanCheck, type PlanningTask } from './planner.ts';

/** How a planner asks for a plan: our JSON-schema planner with repairs, or the paper's. */
export const PLANNER_PROTOCOLS = ['schema', 'paper-zero-shot', 'paper-few-shot'] as const;
export type PlannerProtocol = (typeof PLANNER_PROTOCOLS)[number];

/** The sentence-embedding model OpenAGI maps steps with (`all-MiniLM-L6-v2`). */
export const DEFAULT_MAPPING_MODEL = 'sentence-transformers/all-MiniLM-L6-v2';

const ASK =
  'Write the solution as a list of steps, one per line, each line beginning with "Step" and its number (Step 1: …).';

/**
 * The paper protocol's one message. Zero-shot names no model: only the task and how to write
 * the answer. Few-shot puts the worked examples first, each solution written in steps.
 */
export function paperPlanningPrompt(
  task: Pick<PlanningTask, 'description'>,
  protocol: Exclude<PlannerProtocol, 'schema'>,
  titleOf: (id: string) => string,
): Array<{ role: 'user'; content: string }> {
  const examples =
    protocol === 'paper-few-shot'
      ? OPENAGI_FEW_SHOT.map(
          (x) =>
            `Problem: ${x.task}\nSolution:\n${x.plan.map((id, i) => `Step ${i + 1}: ${titleOf(id)}`).join('\n')}\n\n`,
        ).join('')
      : '';
  return [
    {
      role: 'user',
      content: `${examples}Problem: ${task.description}\n${ASK}\nSolution:`,
    },
  ];
}

/** The answer's lines that begin with "Step" (markdown emphasis aside), as OpenAGI keeps them. */
export function stepLines(answer: string): string[] {
  return answer
    .replace(/^\s*\[simulated\]\s*/, '')
    .split('\n')
    .map((line) => line.trim().replace(/^[*_]+/, ''))
    .filter((line) => /^step\b/i.test(line));
}

/** One step of the answer and the module it was mapped to. */
export interface StepMatch {
  step: string;
  module: string;
  similarity: number;
}

/** How the free text became modules: the method, the model and each step's match. */
export interface PlanMapping {
  method: 'sentence-embedding cosine (argmax over module names)';
  model: string;
  steps: StepMatch[];
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Maps each step to the most similar module name; `embed` gives a text's sentence vector.
 * Returns the chain (repeats dropped, first kept, as OpenAGI does) and every step's match.
 */
export async function mapSteps(
  steps: readonly string[],
  experts: readonly CatalogueEntry[],
  embed: (text: string) => Promise<number[]>,
): Promise<{ chain: string[]; matches: StepMatch[] }> {
  if (steps.length === 0) return { chain: [], matches: [] };
  const names: Array<{ id: string; vector: number[] }> = [];
  for (const e of experts) names.push({ id: e.id, vector: await embed(e.title) });
  const matches: StepMatch[] = [];
  for (const step of steps) {
    const vector = await embed(step);
    let best = { module: names[0]!.id, similarity: -Infinity };
    for (const n of names) {
      const similarity = cosine(vector, n.vector);
      if (similarity > best.similarity) best = { module: n.id, similarity };
    }
    matches.push({ step, ...best });
  }
  return { chain: [...new Set(matches.map((m) => m.module))], matches };
}

/**
 * The plan a paper protocol reads from the model's answer: steps mapped to modules, checked as
 * any plan is (types chain from the task's inputs to its output). Not ok when nothing maps or
 * the types do not chain; the problems say why.
 */
export async function paperPlan(
  answer: string,
  task: PlanningTask,
  experts: readonly CatalogueEntry[],
  embed: (text: string) => Promise<number[]>,
): Promise<{ check: PlanCheck; matches: StepMatch[] }> {
  const steps = stepLines(answer);
  if (steps.length === 0)
    return {
      check: { ok: false, problems: ['the answer has no line beginning with "Step"'] },
      matches: [],
    };
  const { chain, matches } = await mapSteps(steps, experts, embed);
  const outline: PlanOutline = { branches: [], chain };
  return { check: checkOutline(outline, task, experts), matches };
}
