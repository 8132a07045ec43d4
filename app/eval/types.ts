/**
 * The shapes of an evaluation: what it runs (a document over a dataset, per variant), what each
 * item × variant recorded, and the table it adds up to. An eval is a set of ordinary runs in the
 * run store; these records only link those runs to their items and scores.
 */
import type { Rubric } from './rubrics.ts';

/** A named set of run options; without `--variant` an eval has one, named `default`. */
export interface VariantSpec {
  name: string;
  /** `--model PROFILE=PROVIDER:MODEL` overrides. */
  model: string[];
  /** `--set NAME=VALUE` template parameters. */
  set: string[];
  /** `--provider NAME=URL` redirects. */
  provider: string[];
  /** Another document to run instead of the eval's own (a path). */
  document?: string;
}

/** How predictions are scored: a built-in scorer by name, or a scorer document. */
export interface ScorerSpec {
  name: string;
  /** `number`: the absolute tolerance (default 0). */
  tolerance?: number;
  /** `--scorer-graph DOC`: the document's path. */
  graph?: string;
  /**
   * The score at or above which a run solved its item, for cost per solved item; absent for
   * 0/1 scores (1 solves) and for continuous scores that define no solving.
   */
  solvedAt?: number;
}

/** What an eval runs, as stored with it. Equal configs give the same eval id, so a rerun resumes. */
export interface EvalConfig {
  /** The document's name. */
  name: string;
  /** Its path, for display. */
  document: string;
  documentHash: string;
  /** The dataset's path, for display. */
  data: string;
  dataHash: string;
  /** `INPUT=FIELD` and `INPUT=@FIELD` mappings. */
  map: string[];
  /** The dataset field holding the reference (the expected answer). */
  expect?: string;
  /** The document output scored (default: its only output, or the first). */
  output?: string;
  scorer: ScorerSpec;
  variants: VariantSpec[];
  /** How many items of the dataset (from its start). */
  limit?: number;
  /** Simulated, replayed from a cassette, or live. */
  mode: 'live' | 'simulated' | 'replay';
  /** The cassette path in replay mode. */
  cassette?: string;
  /** Stop starting items once this much has been spent (US dollars). */
  budgetUsd?: number;
  /**
   * Runs of each item × variant (`--repeats N`), each with its own seed (repeats.ts). Absent
   * means 1, so evals made before repeats existed keep their ids.
   */
  repeats?: number;
  /**
   * The scales people rate its items on (`--rubric`). Not part of the eval's identity: adding a
   * rubric to the command that made an eval reopens that eval and attaches it.
   */
  rubric?: Rubric;
  /**
   * The layout its table is printed in besides the usual one (a paper's), by kind, with what that
   * layout needs beyond the items (table-presenters.ts). Not part of the eval's identity.
   */
  table?: { kind: string; context?: unknown };
}

/** How an eval stands. */
export type EvalStatus = 'running' | 'finished' | 'interrupted' | 'over-budget';

/** What one item × variant × repeat recorded. */
export type EvalItemStatus = 'running' | 'scored' | 'failed';

export interface EvalItemRecord {
  evalId: string;
  /** The item's 0-based index in the dataset. */
  item: number;
  variant: string;
  /** Which run of the item under `--repeats` (0-based); 0 when the eval runs each item once. */
  repeat?: number;
  /** Derived from (document hash, item, variant, repeat): the same job never runs twice. */
  jobKey: string;
  /** The run in the store (the debugger opens it); absent before it starts. */
  runId?: string;
  status: EvalItemStatus;
  /** Absent when the run failed: a failed item has no score (older stores hold 0 there). */
  score?: number;
  prediction?: unknown;
  reference?: unknown;
  /** A short text naming the item (its question), for tables and reports. */
  label?: string;
  error?: string;
  costUsd: number;
  tokens: number;
  calls: number;
  latencyMs?: number;
  updatedAt: number;
}

/** A stored eval. */
export interface EvalRecord {
  id: string;
  name: string;
  config: EvalConfig;
  status: EvalStatus;
  /** Items in the dataset (after `--limit`). */
  items: number;
  createdAt: number;
  updatedAt: number;
  finishedAt?: number;
  /** Simulated answers were scored: the numbers say nothing about a model. */
  simulated: boolean;
}

/** One variant's line of the table. */
export interface VariantSummary {
  name: string;
  /** Runs finished, scored and failed: items × repeats. */
  n: number;
  failed: number;
  /**
   * The mean over the n runs, a failed one counting as 0, and its 95% interval. Meaningless
   * when every item failed (`failed === n`): tables show "failed" then (score-text.ts). With
   * repeats the mean and interval are over the items' means across their repeats
   * (comparison.ts), not over the n runs.
   */
  score: { mean: number; ci95: [number, number] };
  costUsd: number;
  /**
   * Runs that solved their item (score 1 for 0/1 scores, at or above the scorer's threshold
   * otherwise), and the cost divided by them; absent when solving is undefined for the scorer.
   * `costPerSolvedUsd` is absent too when nothing was solved.
   */
  solved?: number;
  costPerSolvedUsd?: number;
  /** This variant against the first (the baseline), paired by item and repeat; not on the first. */
  vsBaseline?: BaselineComparison;
  tokens: number;
  latencyMs: { p50: number; p95: number };
  /** The mean rating per scale (when the eval has a rubric or ratings), in the rubric's order. */
  ratings?: ScaleRating[];
}

/**
 * One scale's ratings over a variant's items. What was rated (an item's run, or one agent of it)
 * counts once, at the mean of its raters' scores, so `n` is the number of runs or agent
 * trajectories rated on the scale.
 */
export interface ScaleRating {
  scale: string;
  n: number;
  mean: number;
  /** The 95% Student t interval of the mean, when n ≥ 2. */
  ci95?: [number, number];
}

/**
 * A variant compared with the baseline (the eval's first variant) over the runs both have for the
 * same item and repeat: McNemar's test when every score is 0 or 1, else the paired bootstrap
 * (paired.ts). A failed run counts as 0, as in the table's means; a pair one side has not run
 * yet (an interrupted eval) is left out and counted in `unmatched`.
 */
export interface BaselineComparison {
  baseline: string;
  test: 'McNemar' | 'paired bootstrap';
  /** Pairs compared. */
  n: number;
  /** Runs of either side with no partner. */
  unmatched: number;
  /** Mean of this variant − the baseline over the pairs. */
  meanDiff: number;
  ci95: [number, number];
  p: number;
  /** p < 0.05. */
  significant: boolean;
}

/** A person's score of one run (or one agent of it) on one scale; one per run × agent × rater × scale. */
export interface RatingRecord {
  runId: string;
  /** The agent of the run whose trajectory was rated; absent when the whole run was. */
  agent?: string;
  rater: string;
  scale: string;
  score: number;
  note?: string;
  /** Milliseconds since the epoch; a new rating of the same run, rater and scale replaces it. */
  ratedAt: number;
}

/** A rating of an eval item's run, with the item and variant the run answered. */
export interface EvalRating extends RatingRecord {
  item: number;
  variant: string;
}

/** The table an eval adds up to: what `--json` prints and the report and Evals view show. */
export interface EvalSummary {
  evalId: string;
  name: string;
  status: EvalStatus;
  items: number;
  scorer: string;
  simulated: boolean;
  document: string;
  data: string;
  createdAt: number;
  finishedAt?: number;
  variants: VariantSummary[];
  /** Runs of each item × variant (`--repeats`), when more than one. */
  repeats?: number;
  /** The scales its items are rated on (`--rubric`), when it has them. */
  rubric?: Rubric;
  /**
   * Why this session stopped early: the error every one of its first runs failed with (a
   * missing key). Those items are left to run again.
   */
  stopped?: string;
}
