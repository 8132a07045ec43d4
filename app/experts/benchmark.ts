/**
 * OpenAGI's benchmark tasks as runnable graphs. Each task becomes one society document: an input
 * node per task input, a `reference` input for the ground truth, a planner that composes expert
 * models for the task, the planner's answer as an output, and a metric node that scores the
 * answer the way the paper's code scores its category (Ge et al., Sec. 3.1.3; OpenAGI at 22190c5):
 * BERTScore F1 for text answers, CLIP score for pictures painted from text, and the ViT
 * hidden-state distance (lower is better) for the other picture answers. Running the documents over a task's samples and averaging the
 * scores gives the paper's per-category numbers.
 */
import type { GraphDocument, GraphEdge, GraphNode } from '../schema/document.ts';
import { OPENAGI_CATEGORIES, type OpenAgiCategory, type OpenAgiTask } from './openagi.ts';
import type { PlannerProtocol } from './paper-planner.ts';
import { inputNodeId } from './plan.ts';

/** A model profile for the planner: the document's `models` entry it gets. */
export interface PlannerModel {
  /** The profile name the planner refers to. */
  profile: string;
  provider: string;
  model: string;
}

/**
 * Reads `PROVIDER:MODEL` (a profile named `planner`) or `NAME=PROVIDER:MODEL`. Throws an Error
 * saying what is expected.
 */
export function parsePlannerModel(text: string): PlannerModel {
  const trimmed = text.trim();
  const equals = trimmed.indexOf('=');
  const profile = equals >= 0 ? trimmed.slice(0, equals).trim() : 'planner';
  const target = equals >= 0 ? trimmed.slice(equals + 1).trim() : trimmed;
  const colon = target.indexOf(':');
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(profile) || colon <= 0 || colon === target.length - 1) {
    throw new Error(
      `expected PROVIDER:MODEL or NAME=PROVIDER:MODEL (e.g. openai:gpt-4o-mini), got "${text}"`,
    );
  }
  return { profile, provider: target.slice(0, colon), model: target.slice(colon + 1) };
}

/**
 * The `kind` a metric node is given in a built document (the metric node's spec checks it when
 * the document compiles).
 */
export type ScoreKind = 'bertscore' | 'clip-score' | 'vit-distance';

/**
 * The model OpenAGI's code scores each kind with (`research/benchmark_tasks` at 22190c5):
 * BERTScore over DeBERTa-xlarge-MNLI, torchmetrics' CLIPScore over CLIP ViT-B/16, and the
 * hidden-state distance over `nateraw/vit-base-beans`.
 */
export const OPENAGI_METRIC_MODELS: Record<ScoreKind, string> = {
  bertscore: 'microsoft/deberta-xlarge-mnli',
  'clip-score': 'openai/clip-vit-base-patch16',
  'vit-distance': 'nateraw/vit-base-beans',
};

/**
 * How a category is scored, as OpenAGI's code scores it: text answers by BERTScore F1, pictures
 * painted from text by CLIP score, other pictures by the ViT distance (lower is better).
 */
export function metricKindFor(task: Pick<OpenAgiTask, 'category'>): ScoreKind {
  if (task.category === 'text->image') return 'clip-score';
  if (task.category === 'image->image') return 'vit-distance';
  return 'bertscore';
}

/** A file-name-safe slug of the task's goal: "answer-the-question-in-german". */
export function taskSlug(task: Pick<OpenAgiTask, 'target'>): string {
  const slug = task.target
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (slug.slice(0, 60).replace(/-+$/, '') || 'task').trim();
}

/** The file a task's graph is written to: `<id>-<slug>.society.json`. */
export function taskFileName(task: Pick<OpenAgiTask, 'id' | 'target'>): string {
  return `${task.id}-${taskSlug(task)}.society.json`;
}

function edge(
  source: string,
  sourceHandle: string,
  target: string,
  targetHandle: string,
): GraphEdge {
  return {
    id: `e_${source}_${sourceHandle}_${target}_${targetHandle}`,
    source,
    sourceHandle,
    target,
    targetHandle,
  };
}

/**
 * The graph of one task. The planner uses the given model profile, or with none the built-in
 * rule planner. For text-to-image tasks the CLIP score compares the picture with the task's
 * text, so the reference picture is kept as an input but scores nothing.
 */
export function taskGraph(
  task: OpenAgiTask,
  options: {
    model?: PlannerModel;
    /** How the planner asks (default `schema`); a paper protocol also outputs the `plan`. */
    protocol?: PlannerProtocol;
    /** The metric node's output names: a `definition` among them becomes an output too. */
    metricOutputs?: readonly string[];
  } = {},
): GraphDocument {
  const paper = options.protocol !== undefined && options.protocol !== 'schema';
  const kind = metricKindFor(task);
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  task.inputs.forEach((input, row) => {
    nodes.push({
      id: inputNodeId(input.name),
      type: 'input',
      position: { x: 0, y: row * 140 },
      data: {
        name: input.name,
        modality: input.modality,
        ...(input.description ? { description: input.description } : {}),
      },
    });
  });
  nodes.push({
    id: 'in_reference',
    type: 'input',
    position: { x: 0, y: task.inputs.length * 140 },
    data: {
      name: 'reference',
      modality: task.output,
      description:
        kind === 'clip-score'
          ? 'the ground-truth picture (kept for the record; the CLIP score needs no reference)'
          : `the ground-truth ${task.output === 'image' ? 'picture' : 'answer'}`,
    },
  });
  nodes.push({
    id: 'planner',
    type: 'planner',
    position: { x: 300, y: 0 },
    data: {
      task: task.description,
      inputs: task.inputs.map((input) => ({
        name: input.name,
        modality: input.modality,
        ...(input.description ? { description: input.description } : {}),
      })),
      output: task.output,
      ...(options.model ? { model: options.model.profile } : {}),
      ...(paper ? { protocol: options.protocol } : {}),
    },
  });
  for (const input of task.inputs) {
    edges.push(edge(inputNodeId(input.name), 'value', 'planner', input.name));
  }
  nodes.push({
    id: 'answer',
    type: 'output',
    position: { x: 600, y: 0 },
    data: { name: 'answer' },
  });
  edges.push(edge('planner', 'answer', 'answer', 'value'));
  if (paper) {
    // Whoever scores the run reads why a plan was invalid (the paper scores it 0).
    nodes.push({
      id: 'plan',
      type: 'output',
      position: { x: 600, y: -140 },
      data: { name: 'plan' },
    });
    edges.push(edge('planner', 'plan', 'plan', 'value'));
  }

  nodes.push({
    id: 'metric',
    type: 'metric',
    position: { x: 600, y: 160 },
    data: { kind, model: OPENAGI_METRIC_MODELS[kind] },
  });
  if (kind === 'clip-score') {
    const text = task.inputs.find((input) => input.modality === 'text');
    if (!text) throw new Error(`task ${task.id}: a CLIP score needs a text input`);
    edges.push(edge('planner', 'answer', 'metric', 'image'));
    edges.push(edge(inputNodeId(text.name), 'value', 'metric', 'text'));
  } else {
    edges.push(edge('planner', 'answer', 'metric', 'prediction'));
    edges.push(edge('in_reference', 'value', 'metric', 'reference'));
  }
  const metricOutputs = [
    'score',
    'report',
    ...(options.metricOutputs?.includes('definition') ? ['definition'] : []),
  ];
  for (const [row, name] of metricOutputs.entries()) {
    nodes.push({
      id: name,
      type: 'output',
      position: { x: 900, y: 160 + row * 140 },
      data: { name },
    });
    edges.push(edge('metric', name, name, 'value'));
  }

  return {
    version: 1,
    name: `OpenAGI task ${task.id}: ${task.target}`,
    description:
      `${task.description} (OpenAGI benchmark task ${task.id}, ${task.category}; ` +
      `scored by ${kind}). Give the task's inputs and its ground truth as "reference".`,
    ...(options.model
      ? {
          models: {
            [options.model.profile]: {
              provider: options.model.provider,
              model: options.model.model,
            },
          },
        }
      : {}),
    nodes,
    edges,
  };
}

/** Which tasks to build: by category and by id; unknown ones are an Error naming them. */
export function selectTasks(
  tasks: OpenAgiTask[],
  filter: { category?: string; ids?: number[] },
): OpenAgiTask[] {
  let selected = tasks;
  if (filter.category !== undefined) {
    if (!(OPENAGI_CATEGORIES as readonly string[]).includes(filter.category)) {
      throw new Error(
        `unknown category "${filter.category}"; categories: ${OPENAGI_CATEGORIES.join(', ')}`,
      );
    }
    selected = selected.filter((t) => t.category === (filter.category as OpenAgiCategory));
  }
  if (filter.ids) {
    const known = new Set(tasks.map((t) => t.id));
    const missing = filter.ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const last = Math.max(-1, ...known);
      throw new Error(`no task ${missing.join(', ')} in the file (ids run from 0 to ${last})`);
    }
    const wanted = new Set(filter.ids);
    selected = selected.filter((t) => wanted.has(t.id));
  }
  return selected;
}
