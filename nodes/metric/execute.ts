import { z } from 'zod';
import type { ExpertTask } from '../../app/experts/types.ts';
import { meanPool } from '../../app/experts/vectors.ts';
import type { ExpertAnswer, NodeContext, NodeExecutor } from '../../app/node-sdk/define.ts';
import { isImageValue } from '../../app/schema/blob-refs.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
import {
  type BertScoreParts,
  bertScore,
  bertScoreBaseline,
  markerWeights,
  rescaleParts,
} from './bertscore.ts';
import { bertScoreLayer, type MetricDefinition, metricDefinition } from './definition.ts';
import { hitAt, readTimestamps, readWindow, recallTable, type TimeWindow } from './retrieval.ts';
import { type MetricData, type MetricKind, metricModel } from './spec.ts';
import { cosine } from './vectors.ts';
import { vitDistance } from './vit-distance.ts';

/**
 * How a score was computed, said plainly in every report:
 * - `bertscore-f1`: BERTScore F1 as the `bert_score` package computes it (bertscore.ts), over the
 *   token vectors the server answers (the layer it serves), idf-weighted and rescaled when asked;
 * - `vit-frobenius-distance`: OpenAGI's ViT score, ‖A − B‖_F / 100 over two pictures' hidden
 *   states (vit-distance.ts); lower is better;
 * - `bertscore-greedy-f1`: text similarity over token vectors: each token vector of one text
 *   matched with its most similar token vector of the other (cosine), precision and recall
 *   averaged over tokens, F1 of the two; BERTScore's matching without its marker handling, idf,
 *   rescale or layer choice, so not BERTScore;
 * - `sentence-cosine`: the cosine of two sentence embeddings, when the server pools for itself;
 * - `clip-cosine`: CLIP score, max(100·cos, 0) as torchmetrics computes it, divided by 100 as
 *   OpenAGI does, so it lies in [0, 1];
 * - `vit-cosine`: the cosine of two image embeddings (a ViT's patch vectors mean-pooled);
 * - `mean-clip-cosine`: the mean of the CLIP scores of several views against one text;
 * - `recall-at-k`: 1 when one of the first k timestamps lies in the window widened by τ;
 * - `empty-prediction`: an empty text answer scores 0 without a call.
 */
export type MetricMethod =
  | 'bertscore-f1'
  | 'vit-frobenius-distance'
  | 'bertscore-greedy-f1'
  | 'sentence-cosine'
  | 'clip-cosine'
  | 'vit-cosine'
  | 'mean-clip-cosine'
  | 'recall-at-k'
  | 'empty-prediction';

export interface MetricReport {
  kind: MetricKind;
  /** Null only in reports of runs made before a metric's token was required. */
  score: number | null;
  method: MetricMethod | null;
  /** The embedding model; null for arithmetic-only kinds (recall at k). */
  model: string | null;
  /** What the number means, in words: how it was computed and which way is better. */
  explanation?: string;
  /**
   * Which way is better. CLIP scores are higher-is-better as CLIP defines them; NLSOM's 3D
   * section says the opposite of its own table, which the explanation records.
   */
  direction?: 'higher-is-better' | 'lower-is-better';
  /** Multi-view CLIP: each view's score, in view order, and their mean ×100 as the paper prints it. */
  perView?: number[];
  paperScale?: number;
  /** Recall at k: the settings, the timestamps read, the window, and the paper's table. */
  k?: number;
  tolerance?: number;
  predictions?: number[];
  window?: TimeWindow;
  table?: Record<string, 0 | 1>;
  /** Set when an embedding was made up by the simulated provider: the score means nothing. */
  simulated?: true;
  /**
   * Why no score was computed, in reports of runs made before a metric's token was required
   * (a run without it is now refused before it starts).
   */
  skipped?: string;
  /** For greedy matching: its precision and recall, and the token vectors on each side. */
  precision?: number;
  recall?: number;
  tokens?: { prediction: number; reference: number };
  /** BERTScore with rescale: precision, recall and F1 before the rescale. */
  unscaled?: BertScoreParts;
  /** Which definition produced the score (also the node's `definition` output). */
  definition?: MetricDefinition;
}

export { cosine } from './vectors.ts';

/**
 * BERTScore's greedy matching over token vectors: precision averages, over the candidate's
 * tokens, the best cosine with any reference token; recall the same from the reference's side;
 * F1 is their harmonic mean (0 when both are 0). Every token weighs the same.
 */
export function greedyMatch(
  candidate: readonly number[][],
  reference: readonly number[][],
): { precision: number; recall: number; f1: number } {
  if (candidate.length === 0 || reference.length === 0) {
    throw new Error('greedy matching needs at least one token vector on each side');
  }
  const similarity = candidate.map((c) => reference.map((r) => cosine(c, r)));
  const precision = similarity.reduce((sum, row) => sum + Math.max(...row), 0) / candidate.length;
  const recall =
    reference.reduce((sum, _, j) => sum + Math.max(...similarity.map((row) => row[j]!)), 0) /
    reference.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/** CLIP score over [0, 1]: max(100·cos(image, text), 0) / 100. */
export function clipScore(image: readonly number[], text: readonly number[]): number {
  return Math.max(100 * cosine(image, text), 0) / 100;
}

/** An embedding as rows: a single vector is one row; token vectors stay as they are. */
export function embeddingRows(output: unknown): number[][] {
  const isVector = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length > 0 && v.every((n) => typeof n === 'number');
  if (isVector(output)) return [output];
  if (Array.isArray(output) && output.length > 0 && output.every(isVector)) return output;
  throw new Error('the embedding model did not answer with a vector or token vectors');
}

/** One vector for a whole input: token vectors are mean-pooled. */

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asImage(kind: MetricKind, port: string, value: unknown) {
  if (!isImageValue(value)) {
    const got = value === undefined || value === null ? 'nothing' : typeof value;
    throw new Error(`metric ${kind}: "${port}" must be an image, got ${got}`);
  }
  return value;
}

type Scored = Omit<MetricReport, 'kind' | 'model' | 'simulated' | 'skipped'> & {
  answers: ExpertAnswer[];
};

async function score(ctx: NodeContext<MetricData>, model: string): Promise<Scored> {
  const { kind, provider } = ctx.data;
  const embed = (task: ExpertTask, inputs: Record<string, unknown>, pooling?: 'none') =>
    ctx.callExpert({
      backend: 'huggingface',
      provider,
      task,
      model,
      inputs,
      ...(pooling ? { parameters: { pooling } } : {}),
    });

  if (kind === 'bertscore') return scoreBert(ctx, model, embed);

  if (kind === 'vit-distance') {
    const prediction = asImage(kind, 'prediction', ctx.inputs.prediction);
    const reference = asImage(kind, 'reference', ctx.inputs.reference);
    const a = await embed('image-feature-extraction', { image: prediction }, 'none');
    const b = await embed('image-feature-extraction', { image: reference }, 'none');
    const left = hiddenStates(a);
    const right = hiddenStates(b);
    return {
      score: vitDistance(left, right),
      method: 'vit-frobenius-distance',
      direction: 'lower-is-better',
      tokens: { prediction: left.length, reference: right.length },
      answers: [a, b],
    };
  }

  if (kind === 'text-similarity') {
    const prediction = asText(ctx.inputs.prediction);
    const reference = asText(ctx.inputs.reference);
    if (prediction.trim() === '') return { score: 0, method: 'empty-prediction', answers: [] };
    const a = await embed('feature-extraction', { text: prediction }, 'none');
    const b = await embed('feature-extraction', { text: reference }, 'none');
    let left = embeddingRows(a.output);
    let right = embeddingRows(b.output);
    if (left.length === 1 && right.length === 1) {
      return { score: cosine(left[0]!, right[0]!), method: 'sentence-cosine', answers: [a, b] };
    }
    if (!ctx.data.keepSpecialTokens) {
      // The first and last vectors belong to the markers the tokenizer wraps a text in.
      if (left.length >= 3) left = left.slice(1, -1);
      if (right.length >= 3) right = right.slice(1, -1);
    }
    const match = greedyMatch(left, right);
    return {
      score: match.f1,
      method: 'bertscore-greedy-f1',
      precision: match.precision,
      recall: match.recall,
      tokens: { prediction: left.length, reference: right.length },
      answers: [a, b],
    };
  }

  if (kind === 'clip-score') {
    const image = asImage(kind, 'image', ctx.inputs.image);
    const a = await embed('image-feature-extraction', { image });
    const b = await embed('feature-extraction', { text: asText(ctx.inputs.text) });
    const value = clipScore(meanPool(embeddingRows(a.output)), meanPool(embeddingRows(b.output)));
    return { score: value, method: 'clip-cosine', answers: [a, b] };
  }

  if (kind === 'multiview-clip-score') {
    const views = Array.isArray(ctx.inputs.images) ? ctx.inputs.images : [];
    if (views.length === 0) throw new Error('metric multiview-clip-score: "images" has no views');
    const images = views.map((v, i) => asImage(kind, `images[${i}]`, v));
    const b = await embed('feature-extraction', { text: asText(ctx.inputs.text) });
    const text = meanPool(embeddingRows(b.output));
    const answers = [b];
    const perView: number[] = [];
    for (const image of images) {
      const a = await embed('image-feature-extraction', { image });
      answers.push(a);
      perView.push(clipScore(meanPool(embeddingRows(a.output)), text));
    }
    const mean = perView.reduce((sum, x) => sum + x, 0) / perView.length;
    return {
      score: mean,
      method: 'mean-clip-cosine',
      perView,
      paperScale: mean * 100,
      direction: 'higher-is-better',
      explanation:
        `the mean over ${perView.length} views of max(100·cos(view, text), 0)/100; ×100 it is ` +
        `${(mean * 100).toFixed(2)}, the scale NLSOM's Table 6 prints. CLIP scores measure ` +
        'agreement, so higher means the views match the text better; NLSOM (App. H) writes ' +
        '"the smaller the Clip score, the better", which we do not follow',
      answers,
    };
  }

  const prediction = asImage(kind, 'prediction', ctx.inputs.prediction);
  const reference = asImage(kind, 'reference', ctx.inputs.reference);
  const a = await embed('image-feature-extraction', { image: prediction });
  const b = await embed('image-feature-extraction', { image: reference });
  const value = cosine(meanPool(embeddingRows(a.output)), meanPool(embeddingRows(b.output)));
  return { score: value, method: 'vit-cosine', answers: [a, b] };
}

type Embed = (
  task: ExpertTask,
  inputs: Record<string, unknown>,
  pooling?: 'none',
) => Promise<ExpertAnswer>;

/** A picture's hidden states, one row per token: a single pooled vector is not them. */
function hiddenStates(answer: ExpertAnswer): number[][] {
  const rows = embeddingRows(answer.output);
  if (rows.length === 1 && !answer.simulated) {
    throw new Error(
      'metric vit-distance: the server answered one pooled vector; the distance needs the hidden state of every token (feature extraction without pooling)',
    );
  }
  return rows;
}

const idfInput = z.strictObject({
  prediction: z.array(z.number().min(0)),
  reference: z.array(z.number().min(0)),
});

/** BERTScore F1 of the answer against the reference (bertscore.ts), rescaled when asked. */
async function scoreBert(
  ctx: NodeContext<MetricData>,
  model: string,
  embed: Embed,
): Promise<Scored> {
  const layer = bertScoreLayer(ctx.data, model);
  const baseline =
    ctx.data.rescaleWithBaseline && layer !== null ? bertScoreBaseline(model, layer) : undefined;
  if (ctx.data.rescaleWithBaseline && !baseline) {
    throw new Error(
      `metric bertscore: no published baseline for ${model} at layer ${layer ?? '(none given)'}; turn rescaleWithBaseline off, or use microsoft/deberta-xlarge-mnli at layer 40`,
    );
  }
  let weights: { candidate?: number[]; reference?: number[] } = {};
  if (ctx.data.idf) {
    const parsed = idfInput.safeParse(ctx.inputs.idf);
    if (!parsed.success) {
      throw new Error(
        'metric bertscore: "idf" must be {"prediction": [weights], "reference": [weights]}, one non-negative weight per token vector',
      );
    }
    weights = { candidate: parsed.data.prediction, reference: parsed.data.reference };
  }
  const prediction = asText(ctx.inputs.prediction);
  const reference = asText(ctx.inputs.reference);
  let parts: BertScoreParts = { precision: 0, recall: 0, f1: 0 };
  let answers: ExpertAnswer[] = [];
  let tokens: { prediction: number; reference: number } | undefined;
  // An empty answer is [CLS][SEP] to the package, which scores it 0 before any rescale.
  if (prediction.trim() !== '') {
    const a = await embed('feature-extraction', { text: prediction }, 'none');
    const b = await embed('feature-extraction', { text: reference }, 'none');
    const left = embeddingRows(a.output);
    const right = embeddingRows(b.output);
    if ((left.length === 1 || right.length === 1) && !a.simulated) {
      throw new Error(
        'metric bertscore: the server answered one pooled vector; BERTScore needs one vector per token (a model without pooling of its own)',
      );
    }
    parts = bertScore(left, right, {
      candidate: weights.candidate ?? markerWeights(left.length),
      reference: weights.reference ?? markerWeights(right.length),
    });
    answers = [a, b];
    tokens = { prediction: left.length, reference: right.length };
  }
  const final = baseline ? rescaleParts(parts, baseline) : parts;
  return {
    score: final.f1,
    method: prediction.trim() === '' ? 'empty-prediction' : 'bertscore-f1',
    precision: final.precision,
    recall: final.recall,
    ...(baseline ? { unscaled: parts } : {}),
    ...(tokens ? { tokens } : {}),
    direction: 'higher-is-better',
    answers,
  };
}

/** Recall at k for one query: arithmetic on the timestamps read, explained in the report. */
async function recall(ctx: NodeContext<MetricData>) {
  const { k, tolerance } = ctx.data;
  const predictions = readTimestamps(ctx.inputs.predictions);
  const window = readWindow(ctx.inputs.window);
  const score = hitAt(predictions, window, k, tolerance);
  const low = window.start - tolerance;
  const high = window.end + tolerance;
  const top = predictions.slice(0, k);
  const report: MetricReport = {
    kind: 'recall-at-k',
    score,
    method: 'recall-at-k',
    model: null,
    direction: 'higher-is-better',
    explanation:
      `R${k}@${tolerance}: ${score === 1 ? 'a hit' : 'a miss'}, since ` +
      `${score === 1 ? 'one' : 'none'} of the first ${k} timestamps (${top.join(', ') || 'none read'}) ` +
      `lies in [${low}, ${high}] s, the window ${window.start}–${window.end} s widened by ${tolerance} s ` +
      'on each side; over many queries the mean of these is R_k@τ',
    k,
    tolerance,
    predictions,
    window,
    table: recallTable(predictions, window),
  };
  const definition = metricDefinition(ctx.data);
  report.definition = definition;
  await ctx.message(`R${k}@${tolerance} ${score} (${report.explanation})`);
  return { score, report, definition };
}

export const execute: NodeExecutor<MetricData> = async (ctx) => {
  const { kind } = ctx.data;
  if (kind === 'recall-at-k') return recall(ctx);
  const model = metricModel(ctx.data)!;
  // Its token is required like any key a run uses: the run's preflight refuses a live run
  // without it, so a score is never silently missing from a run that succeeded.
  const { answers, ...rest } = await score(ctx, model);
  const simulated = answers.some((a) => a.simulated);
  const definition = metricDefinition(ctx.data);
  const report: MetricReport = {
    kind,
    ...rest,
    model,
    definition,
    ...(simulated ? { simulated: true } : {}),
  };
  const shown = rest.score === null ? 'none' : rest.score.toFixed(4);
  await ctx.message(
    `${simulatedPrefix(simulated)}${kind} ${shown} (${definition.name}, ${model}, ${definition.better} is better)`,
  );
  return { score: rest.score, report, definition };
};
