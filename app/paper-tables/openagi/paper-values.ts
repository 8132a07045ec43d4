/**
 * The figures of OpenAGI's Table 1 (Ge et al., "OpenAGI: When LLM Meets Domain Experts", Sec.
 * 5.4, Table 1: task-solving performance per planner model and learning schema; Overall is the
 * mean of the CLIP, BERT and ViT scores). GPT-3.5-turbo has no fine-tuning or RLTF column. Each
 * column is named "<model> <schema>", e.g. "GPT-3.5-turbo zero-shot".
 */
import type { PaperFigure } from '../../eval/paper-values.ts';

export type Table1Row = 'CLIP' | 'BERT' | 'ViT' | 'Overall';

/** [CLIP, BERT, ViT, Overall] per column, as printed. */
const FIGURES: Record<string, [number, number, number, number]> = {
  'GPT-3.5-turbo zero-shot': [0.0, 0.1914, 0.2437, 0.145],
  'GPT-3.5-turbo few-shot': [0.0, 0.382, 0.7497, 0.3772],
  'Vicuna-7b zero-shot': [0.0, 0.0, 0.0, 0.0],
  'Vicuna-7b few-shot': [0.0, 0.2677, 0.0, 0.0892],
  'Vicuna-7b fine-tuning': [0.0, 0.1198, 0.742, 0.2872],
  'Vicuna-7b RLTF': [0.2584, 0.1643, 0.5033, 0.3902],
  'Flan-T5-Large zero-shot': [0.0, 0.0, 0.0, 0.0],
  'Flan-T5-Large few-shot': [0.0, 0.2488, 0.0, 0.0829],
  'Flan-T5-Large fine-tuning': [0.0, 0.1394, 0.7527, 0.2973],
  'Flan-T5-Large RLTF': [0.3059, 0.2554, 0.6551, 0.4054],
};

/** The paper's column names, in its order. */
export const PAPER_COLUMNS: readonly string[] = Object.keys(FIGURES);

const ROWS: readonly Table1Row[] = ['CLIP', 'BERT', 'ViT', 'Overall'];

/** The paper's figure for a row of a column (with where it is printed), or undefined. */
export function paperFigure(column: string, row: Table1Row): PaperFigure | undefined {
  const values = FIGURES[column];
  if (!values) return undefined;
  return { value: values[ROWS.indexOf(row)]!, where: `Table 1, ${column}` };
}

/** A column name as given (any case, "zero shot" or "zero-shot"), or undefined. */
export function paperColumn(name: string): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');
  return PAPER_COLUMNS.find((c) => norm(c) === norm(name));
}

const MODELS: Array<[RegExp, string]> = [
  [/gpt-?3\.5-turbo/i, 'GPT-3.5-turbo'],
  [/vicuna-?7b/i, 'Vicuna-7b'],
  [/flan-?t5-?large/i, 'Flan-T5-Large'],
];

/**
 * The paper column a planner model and protocol stand for: the paper's zero-shot and few-shot
 * protocols with one of its models. Our schema planner matches no column (the paper had none).
 */
export function inferPaperColumn(model: string | undefined, planner: string): string | undefined {
  const schema =
    planner === 'paper-zero-shot' ? 'zero-shot' : planner === 'few-shot' ? 'few-shot' : undefined;
  const name = model ? MODELS.find(([re]) => re.test(model))?.[1] : undefined;
  return schema && name ? `${name} ${schema}` : undefined;
}
