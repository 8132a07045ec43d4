/**
 * What a loop container (`container: 'loop'`, such as the mindstorm) tells the core, and what the
 * core offers it. The core runs rounds, keeps each round's values, resets a loop entered again
 * and gathers `collect: all` values; everything a loop means beyond that (its stage order, its
 * stop conditions, what members may do between rounds, its outputs) is the container's:
 *
 * - compile time, pure (`spec.loop`, safe for the editor): the loop's machine states, built with
 *   the `LoopStatesBuilder` the compiler hands it;
 * - run time (`loop` exported by the container's execute.ts, loaded through the registry like an
 *   executor): stop conditions, the steps its states invoke by name, what a node inside sees of
 *   the loop, and the loop's outputs. Steps reach nodes only through `LoopStepContext`.
 */
import type { Stage } from '../schema/document.ts';
import type { LoopPhase, LoopView, NodeOutputs, TranscriptEntry } from './define.ts';
import type { EstimatePlan, LoopEffect } from './estimate.ts';

/**
 * A node's outputs by port, plus `$instances`: who produced them (one per replica), and for a
 * node in a loop whose port is read with `collect: all`, that port's value in every round.
 */
export type NodeValues = Record<string, unknown>;

/** One entry of a loop: its round, the values of every round so far, why it stops. */
export interface LoopState {
  round: number;
  /** Values of the round-stage nodes after each round; index 0 is round 1. */
  history: Array<Record<string, NodeValues>>;
  /** Why the loop ends early, when a stop condition held. */
  stop?: string;
  /** What the container's steps kept for its outputs (a mindstorm's vote tally). */
  memo?: Record<string, unknown>;
}

// ---- compile time ------------------------------------------------------------------------

// biome-ignore lint/suspicious/noExplicitAny: XState configs are open-ended JSON.
export type StateConfig = Record<string, any>;

/** What the compiler offers a loop container building its states: JSON pieces, named actions. */
export interface LoopStatesBuilder {
  /** The loop's node id. */
  readonly loop: string;
  /** Whether any node directly inside the loop runs at this stage. */
  has(stage: Stage): boolean;
  /** The nodes directly inside that run at this stage, in document order, less `exclude`. */
  members(stage: Stage, exclude?: string): string[];
  /** An `invoke` that runs one stage's nodes (leaving out `exclude`, under an actor of its own). */
  runStage(stage: Stage, exclude?: string): StateConfig;
  /** An `invoke` of a step of the container's run-time part (`LoopRuntime.steps[step]`). */
  runStep(step: string): StateConfig;
  /** Actions the core implements, with their params filled in. */
  readonly actions: {
    /** Starts a round: counts it and reports `round.started`. Put it on the round state's entry. */
    begin: StateConfig;
    /** Ends a round: keeps its values, checks the stop conditions, reports `round.finished`. */
    end: StateConfig;
    /** Keeps the values a stage's nodes produced. */
    stage: StateConfig;
    /** Keeps what a step produced (`LoopStepResult`). */
    step: StateConfig;
    /** Ends the loop: gathers `collect: all` values and sets the loop's outputs. */
    finish: StateConfig;
  };
  /** The guard that lets another round start: rounds left and no stop condition held. */
  continues(maxRounds: number): StateConfig;
}

/** A loop container's compile-time part. */
export interface LoopSpec<D> {
  /** The most rounds one entry of the loop runs (what estimates count). */
  maxRounds(data: D): number;
  /**
   * The loop machine's states: a `round` state (entry `actions.begin`, invoking
   * `runStage('round')`, done with `actions.end`), what comes before and after, and a final
   * state whose entry is `actions.finish`. The compiler adds the machine id and the entry that
   * starts the rounds afresh.
   */
  states(data: D, build: LoopStatesBuilder): { initial: string; states: StateConfig };
  /**
   * True when an entry of the loop can end before `maxRounds` (a stop condition): estimates
   * still count every round, and a budget check then warns rather than refuses.
   */
  mayStopEarly?(data: D): boolean;
  /** For estimates: how the loop changes the calls of a node directly inside it. */
  effect?(data: D, node: string, plan: EstimatePlan & { loop: string }): LoopEffect;
}

// ---- run time ----------------------------------------------------------------------------

export type { LoopPhase };

/**
 * What a loop type's `view` tells a node inside, besides what the core fills in (round, stage,
 * transcript, phase): the words that end the loop, the loop's wording of the turn, and the
 * loop's own fields (`Own`, declared in its folder).
 */
export type LoopOwnView<Own extends object = Record<string, unknown>> = Pick<
  LoopView,
  'stopKeywords' | 'wording'
> &
  Own;

/** The core's offer to a loop step: running nodes inside, the transcript, the loop's state. */
export interface LoopStepContext<D = unknown> {
  data: D;
  /** The loop's node id, and its key (`storm`, `inner@r2`: where its transcript is kept). */
  loop: string;
  key: string;
  /** The run's seed with the loop's key: the same run draws the same. */
  seed: string;
  signal: AbortSignal;
  /** A copy of the loop's state; a step returns what it changes. */
  state: LoopState;
  /** The loop's transcript; a step may rewrite the text of entries (a revision). */
  transcript: TranscriptEntry[];
  /** How many copies a node inside runs as; undefined when it is not replicated. */
  replicas(node: string): number | undefined;
  /** A node's parsed data. */
  nodeData(node: string): Record<string, unknown>;
  /** The instance id a node (replica) had in a round of this loop entry (`member#1@r2`). */
  instance(node: string, replica: number | undefined, round: number): string;
  /** The inputs a node (replica) answered in a round of this loop entry. */
  inputsAnswered(node: string, replica: number | undefined, round: number): Record<string, unknown>;
  /** Runs a node (replica) inside the loop in a phase: in a round, or at a stage. */
  run(
    node: string,
    replica: number | undefined,
    at: { round: number } | { stage: Stage },
    phase: LoopPhase,
  ): Promise<{ outputs: NodeOutputs; instance: string }>;
  /** Renders one of a node's templates with its inputs as they are now (a leader's question). */
  render(node: string, template: string, field: string): Promise<string>;
  /**
   * Reports something under the loop's key (a `report` event, a vote the loop held, say): like
   * `NodeContext.report`, `kind` must be one the loop's spec declares in `reports`.
   */
  report(kind: string, data: unknown): void;
}

/** What a step changes: the rounds' values, values of nodes inside, things kept for outputs. */
export interface LoopStepResult {
  history?: LoopState['history'];
  values?: Record<string, NodeValues>;
  memo?: Record<string, unknown>;
}

/** What a loop container's `view` reads to tell a node inside about the loop. */
export interface LoopViewContext<D = unknown> {
  data: D;
  node: string;
  /** Which copy of a replicated node is asking (0-based); undefined for a single node. */
  replica?: number;
  stage: Stage;
  state: LoopState;
  phase?: LoopPhase;
  replicated(node: string): boolean;
  /** The inputs this instance answered in an earlier round of this loop entry. */
  inputsAnswered(round: number): Record<string, unknown>;
}

/**
 * What the model calls made inside one loop entry so far used, as their providers reported it
 * (a cassette's recorded figures on replay): every call of every node inside, nested loops'
 * included, from the entry's start (its init stage too) to now.
 */
export interface LoopUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** A loop container's run-time part: `export const loop` in its execute.ts. */
export interface LoopRuntime<D = unknown> {
  /**
   * Why the loop ends after this round, when it does (a stop condition that held): `current`
   * and `previous` are the round-stage nodes' values this round and the one before, `usage`
   * what this entry's model calls have used up to the end of this round.
   */
  stopReason?(
    data: D,
    current: Record<string, NodeValues>,
    previous: Record<string, NodeValues> | undefined,
    usage: LoopUsage,
  ): string | undefined;
  /** What a node inside sees of the loop besides its round, stage, transcript and phase. */
  view(ctx: LoopViewContext<D>): LoopOwnView;
  /** Steps the loop's states invoke by name (`runStep`). */
  steps?: Record<string, (ctx: LoopStepContext<D>) => Promise<LoopStepResult>>;
  /** The loop's outputs when an entry ends (`transcript` is that entry's). */
  outputs(ctx: {
    data: D;
    state: LoopState;
    transcript: TranscriptEntry[];
    values: Record<string, NodeValues>;
  }): NodeOutputs;
}
