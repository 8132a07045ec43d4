/**
 * What a node type tells the worst-case estimate (app/costs/estimate.ts), and what the estimate
 * offers it. The estimate walks the plan, multiplies copies and rounds and applies prices; what
 * one call of a node sends, and how long what it produces may be, is the node type's to say.
 */
import type { Stage } from '../schema/document.ts';

/** When a node runs in its innermost loop: a stage and, for `round`, the round. */
export interface EstimatePoint {
  stage: Stage;
  round: number;
}

/** One model call of one copy of a node. */
export interface EstimatedCall {
  /**
   * Set on calls made outside the node's own turns, named by what makes them: a turn a loop
   * asks of a member (its phase's kind), a repair or a retry of a refused answer.
   */
  phase?: string;
  promptTokens: number;
  /** Its answer's tokens, when the call's limit is not the node's (see `answerLength`). */
  completionTokens?: number;
  /**
   * Made only when an earlier answer was refused (a plan repaired, a step asked again): part of
   * the worst case, not of a run whose answers are all taken the first time.
   */
  retry?: boolean;
  /**
   * A call to an expert model (Hugging Face, an embedding model): counted as an expert call,
   * with no tokens, as a run counts it. `model` names the model, for the table.
   */
  expert?: { model: string };
  /**
   * The model this call goes to when it is not the node's own: a call made inside a library
   * graph the node offers as a tool (`CallEstimateContext.graphCalls`).
   */
  model?: string;
  /** How many such calls (default 1); a share of one when a branch or a choice weighs it. */
  calls?: number;
  /**
   * Counted once for the node in the whole run, not per copy nor per loop round: a bound the
   * engine enforces over all of them (an agent's `maxToolCalls`).
   */
  perNode?: boolean;
}

/** How the innermost loop around a node changes its calls (its container's `loop.effect`). */
export interface LoopEffect {
  /** The node never takes its own turn (a leader whose question the members vote on). */
  replaced?: boolean;
  /** Tokens the loop adds to the node's prompt at a point (the previous round's answers). */
  extraPrompt?(at: EstimatePoint): number;
  /** Calls the loop adds after the node's own turns, with their user-message tokens. */
  extraCalls?(): Array<{ phase: string; userTokens: number }>;
  /** The node's answer may be this long instead (a vote's winner is a member's answer). */
  answerTokens?: number;
}

/** Sizes over the whole plan, in tokens (about four characters each). */
export interface EstimatePlan {
  tokens(text: string): number;
  /** A template rendered with the given variables (inputs render empty); as written on failure. */
  render(template: string, vars: Record<string, unknown>): string;
  /** A node's parsed data. */
  nodeData(node: string): Record<string, unknown>;
  /** The template variables of each copy of a node (its replicated ancestors' and its own). */
  copies(node: string): Array<Record<string, unknown>>;
  /** Everything connected to a node's inputs (`textOnly` leaves out image inputs). */
  inputTokens(node: string, textOnly?: boolean): number;
  /**
   * What a node sends for one of its templates: the template rendered with the copy's variables
   * and with every input whose value is known or sampled before the run (`knownOutput`,
   * `sampleOutput`), plus the other inputs, each counted once, or one element's share of it
   * when the node only reads it at its copy's item (`scores[agent]` in a group over agents).
   */
  templateTokens(node: string, template: string, vars: Record<string, unknown>): number;
  /** Whether anything is connected to a node's input port. */
  connected(node: string, port: string): boolean;
  /** Copies of a node per entry of a loop around it (replications in between). */
  copiesWithin(node: string, loop: string): number;
  /** The longest answer any copy of a model node may give. */
  maxCompletion(node: string): number;
  /** What a node's answer may be: its own, or what its loop puts in its place. */
  answerTokens(node: string): number;
  /** The largest value one copy of a node gives on a port. */
  outputTokens(node: string, port: string): number;
  /**
   * Every message that could be in a loop's transcript when `reader` runs at `at` (without a
   * reader: the whole transcript at that point).
   */
  transcriptTokens(loop: string, reader: string | undefined, at: EstimatePoint): number;
  /** Whether a template reads its loop's transcript (`loop.transcript`). */
  readsTranscript(template: string): boolean;
  /** A run input or a person's answer, by name: its known value, else `fallback`, else the defaults. */
  given(name: string, fallback: unknown, image: boolean): number;
  /** How long an answer with this limit is taken to be (the estimate's share of the limit). */
  answerLength(maxTokens: number): number;
  /** What is connected to one input port of a node, in tokens (a list counts every element). */
  portTokens(node: string, port: string): number;
  /**
   * The value arriving at a node's input port when its source knows it from its data alone
   * (its spec's `knownOutput`, e.g. an environment's world); undefined otherwise.
   */
  knownInput(node: string, port: string): unknown;
  /** How many items arrive at a list input port when its source's data decides it (`knownLength`). */
  knownInputLength(node: string, port: string): number | undefined;
}

/** What a node's own hooks get: the plan, the node, and its innermost loop. */
export interface EstimateContext<D = unknown> extends EstimatePlan {
  node: string;
  data: D;
  /** The innermost loop around the node. */
  loop?: string;
  /** Where the node runs in that loop: its stage there and its rounds. */
  at: EstimatePoint;
}

/** What `estimate` gets for one copy of the node. */
export interface CallEstimateContext<D = unknown> extends EstimateContext<D> {
  /** The copy's template variables. */
  vars: Record<string, unknown>;
  /** Completion tokens of one of its calls. */
  completion: number;
  /** Its executions within its innermost loop (once outside any loop). */
  executions: EstimatePoint[];
  /** What its loop changes. */
  effect: LoopEffect;
  /**
   * The calls of one run of a library graph offered as a tool, as the gateway runs a call (its
   * own estimate, with this one's options; its inputs count as unknown): each with its `model`,
   * `completionTokens` and `calls`. Empty when the graph calls no model, or is not in the library.
   */
  graphCalls(name: string): EstimatedCall[];
  /** The run's bound on tool calls (`settings.budget.maxToolCalls`), when the document sets one. */
  runMaxToolCalls?: number;
}
