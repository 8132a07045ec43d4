/**
 * OpenAGI's benchmark tasks (Ge et al., Sec. 3.1): one line each, "Given <degraded inputs>, how
 * to <goal> step by step?". We read a line into its category (the input and output
 * modalities), its task inputs as ports, the degradations the inputs carry and the language
 * the answer is wanted in, so each task can become a graph a planner fills in.
 */
import type { Modality } from '../schema/modality.ts';
import type { PlanInput } from './plan.ts';

export const OPENAGI_CATEGORIES = [
  'image->image',
  'image->text',
  'text->image',
  'text->text',
  'image+text->text',
  'text+text->text',
] as const;
export type OpenAgiCategory = (typeof OPENAGI_CATEGORIES)[number];

/** Words that describe how an input was degraded, as the task lines write them. */
export const DEGRADATION_WORDS = [
  'low-resolutioned',
  'low-resolution',
  'noisy',
  'blurry',
  'grayscale',
  'gray',
  'clozed',
] as const;

export interface OpenAgiTask {
  /** 0-based line number in the task file (the id OpenAGI's scripts use). */
  id: number;
  description: string;
  category: OpenAgiCategory;
  inputs: PlanInput[];
  output: Modality;
  /** Degradation words in the order the line first gives them (each once). */
  degradations: string[];
  /** The goal as written: "answer the question in German". */
  target: string;
  /** "German", "English", "Chinese", or undefined when the goal names none. */
  outputLanguage?: string;
}

const LINE = /^Given (.+), how to (.+?) step by step\?$/;
const LANGUAGE = /\bin (English|German|Chinese)$/;

/** Reads one task line; throws an Error naming what it could not read. */
export function parseTask(line: string, id: number): OpenAgiTask {
  const description = line.trim();
  const match = LINE.exec(description);
  if (!match)
    throw new Error(`task ${id}: not "Given …, how to … step by step?": "${description}"`);
  const given = match[1]!.trim();
  const target = match[2]!.trim();
  const words = given.split(/\s+/);
  const degradations = [
    ...new Set(words.filter((w) => (DEGRADATION_WORDS as readonly string[]).includes(w))),
  ];
  const plain = words
    .filter((w) => !(DEGRADATION_WORDS as readonly string[]).includes(w))
    .join(' ');
  const inputs = inputsOf(plain, id, description);
  const output: Modality = /\bimage\b/.test(target) ? 'image' : 'text';
  const language = LANGUAGE.exec(target)?.[1];
  const category = `${inputs.map((i) => (i.modality === 'image' ? 'image' : 'text')).join('+')}->${output}`;
  if (!(OPENAGI_CATEGORIES as readonly string[]).includes(category)) {
    throw new Error(`task ${id}: no OpenAGI category takes ${category}: "${description}"`);
  }
  return {
    id,
    description,
    category: category as OpenAgiCategory,
    inputs,
    output,
    degradations,
    target,
    ...(language ? { outputLanguage: language } : {}),
  };
}

function inputsOf(given: string, id: number, line: string): PlanInput[] {
  const lower = given.toLowerCase();
  if (lower === 'image') return [{ name: 'image', modality: 'image', description: 'the picture' }];
  if (lower === 'image and english query') {
    return [
      { name: 'image', modality: 'image', description: 'the picture' },
      { name: 'question', modality: 'text', description: 'the question about it' },
    ];
  }
  if (lower === 'english document and english query') {
    return [
      { name: 'context', modality: 'text', description: 'the document' },
      { name: 'question', modality: 'text', description: 'the question about it' },
    ];
  }
  const textMatch = /^(english|chinese|german) text$/.exec(lower);
  if (textMatch) return [{ name: 'text', modality: 'text', description: `the ${given}` }];
  throw new Error(`task ${id}: unknown inputs "${given}": "${line}"`);
}

/** Reads a task file (one task per non-empty line); lines that cannot be read are reported. */
export function parseTaskFile(text: string): { tasks: OpenAgiTask[]; problems: string[] } {
  const tasks: OpenAgiTask[] = [];
  const problems: string[] = [];
  text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .forEach((line, id) => {
      try {
        tasks.push(parseTask(line, id));
      } catch (error) {
        problems.push((error as Error).message);
      }
    });
  return { tasks, problems };
}

/** Tasks grouped by category, in OpenAGI's category order. */
export function byCategory(tasks: OpenAgiTask[]): Map<OpenAgiCategory, OpenAgiTask[]> {
  const groups = new Map<OpenAgiCategory, OpenAgiTask[]>(OPENAGI_CATEGORIES.map((c) => [c, []]));
  for (const task of tasks) groups.get(task.category)!.push(task);
  return groups;
}
