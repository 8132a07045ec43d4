/**
 * The contract between the run engine and anything that runs an expert model: Hugging Face
 * (hosted Inference Providers or a custom endpoint), local image processing, cassettes and the
 * simulated provider. Like chat providers, expert providers are dumb transports: the engine owns
 * retries, timeouts, concurrency, events and the call record, so a provider makes one attempt.
 */
import type { CallOptions } from './types.ts';

/**
 * The tasks an expert can perform, named as Hugging Face names its pipelines, so a model's
 * `pipeline_tag` on the Hub is the task here.
 */
export const EXPERT_TASKS = [
  'image-to-text',
  'visual-question-answering',
  'text-to-image',
  'image-to-image',
  'image-classification',
  'object-detection',
  'translation',
  'summarization',
  'fill-mask',
  'question-answering',
  'text-classification',
  'token-classification',
  'text-generation',
  'automatic-speech-recognition',
  'text-to-speech',
  'image-to-3d',
  'text-to-3d',
  // Not a Hugging Face pipeline: rendering a 3D asset to pictures, which only the local
  // operation and the simulator do (app/experts/render-views.ts).
  'render-views',
  'feature-extraction',
  'image-feature-extraction',
] as const;
export type ExpertTask = (typeof EXPERT_TASKS)[number];

/** Bytes with their MIME type: an image, a sound or a 3D asset handed to or from a model. */
export interface BinaryValue {
  bytes: Uint8Array;
  mime: string;
}

/** A class with its score, as classifiers and detectors return them. */
export interface LabelValue {
  label: string;
  score: number;
  /** Object detection: the box in pixels. */
  box?: { xmin: number; ymin: number; xmax: number; ymax: number };
}

/**
 * A named entity found in a text, as token classification returns it with its tokens grouped:
 * the words, their type (PER, ORG, LOC, MISC for CoNLL-trained models), the score and where the
 * words are in the text (character offsets).
 */
export interface EntityValue {
  word: string;
  type: string;
  score: number;
  start: number;
  end: number;
}

/** What an input port of an expert receives: text or bytes. */
export type ExpertInputValue = string | BinaryValue;

/**
 * What an expert returns, by the task's output:
 * - text tasks: a string;
 * - image, audio and 3D outputs: bytes;
 * - classification and detection: labels, best first;
 * - token classification (named entities): entities in text order;
 * - feature extraction (text or image): a vector; text asked with the parameter
 *   `pooling: 'none'` may instead give one vector per token, when the server sends them.
 */
export type ExpertOutputValue =
  | string
  | BinaryValue
  | LabelValue[]
  | EntityValue[]
  | number[]
  | number[][];

/** One request to an expert. `inputs` are keyed by the task's input names (see catalogue). */
export interface ExpertRequest {
  task: ExpertTask;
  /** The model id the backend knows (a Hub id such as `facebook/bart-large-cnn`). */
  model: string;
  inputs: Record<string, ExpertInputValue>;
  /** Task parameters passed through unchanged (for example `max_new_tokens`, `src_lang`). */
  parameters?: Record<string, unknown>;
}

export interface ExpertResult {
  output: ExpertOutputValue;
  /** The model that answered (the request's model unless the backend says otherwise). */
  model: string;
  /** True when the output was made up by the simulated provider; shown everywhere it appears. */
  simulated?: boolean;
  /** Where the answer came from: a live server, local processing, a cassette or the simulator. */
  source: 'live' | 'local' | 'cassette' | 'simulated';
}

/** A transport that runs expert requests. One instance per provider profile. */
export interface ExpertProvider {
  /** The provider profile name, used for concurrency limits and in events. */
  readonly id: string;
  run(request: ExpertRequest, options: CallOptions): Promise<ExpertResult>;
  /** As ChatProvider.ready: a lazy client library's load, awaited before a call's clock starts. */
  ready?(): Promise<void> | undefined;
}

/** True when the value is bytes with a MIME type. */
export function isBinaryValue(value: unknown): value is BinaryValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as BinaryValue).bytes instanceof Uint8Array &&
    typeof (value as BinaryValue).mime === 'string'
  );
}

/** A task name as a node asked for it, checked against the tasks an expert can perform. */
export function expertTask(task: string): ExpertTask {
  if ((EXPERT_TASKS as readonly string[]).includes(task)) return task as ExpertTask;
  throw new Error(`unknown expert task "${task}" (known: ${EXPERT_TASKS.join(', ')})`);
}
