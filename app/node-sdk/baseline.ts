/**
 * What a node type offers the budget-matched baselines of `society eval --baselines`
 * (app/eval/baselines): the generator builds its control documents through these hooks, so it
 * names no node type. A type declares only the parts it plays.
 */

/** One model call answering the question: what the generator asks of a type that answers. */
export interface BaselineAnswerRequest {
  /** The prompt template; it reads the society's text inputs by name. */
  prompt: string;
  /** The model profile that answers. */
  profile: string;
  /** The call sees the run's image (wired to the returned `image` port). */
  vision: boolean;
  /** Completion tokens allowed (else the profile's). */
  maxTokens?: number;
  /** Sampling temperature (else the profile's). */
  temperature?: number;
  /** How the answer is read, as the society's deciding node reads it (e.g. `choice`). */
  parse?: string;
  /** Profiles of independent copies, one call each (a self-consistency sample, a member). */
  copies?: string[];
}

/** A node the generator places: its data and the ports it wires. */
export interface BaselineNode {
  data: Record<string, unknown>;
  /** The input port a value arrives at (the image for an answer, the ballots for a tally). */
  input?: string;
  /** The output port the result leaves from. */
  output: string;
}

/** The hooks, each optional. */
export interface BaselineHooks<D> {
  /**
   * The ids of the member nodes whose own answers a vote without discussion polls (a
   * mindstorm's members): the society's discussion arm drops the rounds and keeps these.
   */
  members?(data: D): string[];
  /** Data of a node answering in one model call per copy (an agent). */
  answer?(request: BaselineAnswerRequest): BaselineNode;
  /** Data of a node counting ballots by plurality and giving the winner (a vote). */
  tally?(): BaselineNode;
  /** Data of a node giving the last non-empty line of a text (a transform). */
  lastLine?(): BaselineNode;
}
