/**
 * What the editor shows of a run, folded from the pushed event stream. The events are the
 * engine's own `RunEvent` union (app/runtime/events.ts, imported for its types only: the page
 * bundles no runtime); `applyEvents` is where pushed JSON becomes typed events, and
 * runEvents.ts folds each one with an exhaustive switch.
 */
import { RUN_EVENT_TYPES, type RunEvent, type RunEventType } from '../../app/runtime/events.ts';
import type { GraphDocument } from '../../app/schema/document.ts';
import type { MissingKey } from './keyAdvice.ts';
import { foldEvent } from './runEvents.ts';

export type NodeRunState = 'waiting' | 'running' | 'done' | 'failed' | 'paused' | 'skipped';
export type RunStatus =
  | 'idle'
  | 'starting'
  | 'running'
  | 'paused'
  | 'succeeded'
  | 'failed'
  | 'cancelled';

type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** Where the debugger stopped. */
export type Checkpoint = EventOf<'paused'>['at'];

/** A message as the transcript lists it. */
export type TranscriptMessage = Omit<EventOf<'message'>, 'type' | 'runId' | 'time'>;

export interface NodeRun {
  state: NodeRunState;
  /** Instances running now (replicas run side by side). */
  active: number;
  finished: number;
  /** A container's current round. */
  round?: number;
  maxRounds?: number;
  error?: string;
  /** Why the node was skipped (a branch not taken): `router.urgent: rule 1 chose normal`. */
  skipped?: string;
  /** The state to go back to when a pause here ends. */
  before?: NodeRunState;
}

/**
 * A node's latest value, for its card: the outputs its last finished copy gave (as the redacted
 * events carry them: long text clipped, images as references), or the message a paused run holds
 * it at before delivering it.
 */
export interface NodeValue {
  /** The copy that gave it (`critic#3`, `talk@r2`). */
  instance: string;
  /** Output values by port; only the ports the node took. */
  outputs: Record<string, unknown>;
  /** The outputs it did not take (a router's other branches), with why. */
  notTaken?: Record<string, string>;
  /** The text is a message the debugger holds: not delivered yet, and still editable. */
  held?: boolean;
}

/** One execution of a node instance (`member#1@r2`), for the timeline and usage by node. */
export interface InstanceRun {
  instance: string;
  node: string;
  nodeType?: string;
  round?: number;
  stage?: string;
  /** Event times (milliseconds since the epoch). */
  start: number;
  end?: number;
  state: 'running' | 'done' | 'failed';
  error?: string;
  /** Model calls it made, and what they cost (answers so far). */
  calls: number;
  tokens: number;
  costUsd: number;
}

/** A round of a loop container, for the timeline's round marks. */
export interface RoundMark {
  loop: string;
  round: number;
  maxRounds?: number;
  start: number;
  end?: number;
}

/** A model call whose answer is still coming, with the text streamed so far. */
export interface LiveCall {
  node: string;
  instance: string;
  text: string;
}

/** A graph a node ran as its child (a planner's accepted plan), with its nodes' progress. */
export interface PlanView {
  seq: number;
  node: string;
  instance: string;
  /** Instance ids of the plan's nodes start with this. */
  prefix: string;
  /** The plan as an ordinary graph document. */
  document: GraphDocument;
  /** The state of each of its nodes, by node id. */
  steps: Record<string, 'running' | 'done' | 'failed' | 'skipped'>;
  /** Why each skipped step was skipped (a branch the plan did not take), by node id. */
  skipped?: Record<string, string>;
  outputs?: Record<string, unknown>;
}

export interface RunView {
  runId: string | null;
  status: RunStatus;
  mode?: string;
  nodes: Record<string, NodeRun>;
  messages: TranscriptMessage[];
  outputs: Record<string, unknown> | null;
  usage: { calls: number; tokens: number; costUsd: number };
  paused?: { reason: string; at: Checkpoint };
  error?: string;
  /** The run failed because a provider had no key (the error then says what to do here). */
  missingKey?: MissingKey;
  human: Array<{ node: string; name: string; prompt: string; answer?: string }>;
  /** Any answer in this run came from the simulated provider. */
  simulated: boolean;
  /** Recent events, newest last, for the raw event log. */
  log: RunEvent[];
  /** Node instances by id, in the order they started. */
  instances: Record<string, InstanceRun>;
  rounds: RoundMark[];
  /** When the run was held by the debugger (the timeline leaves these stretches out). */
  pauses: Array<{ start: number; end?: number }>;
  /** Calls under way by call id: what the canvas shows streaming. */
  live: Record<string, LiveCall>;
  /** When the run started and ended (event times). */
  startedAt?: number;
  endedAt?: number;
  /** The run this one forks, and the last of its parent's events it kept. */
  forkOf?: { runId: string; seq: number };
  /** Graphs nodes ran as their children (planners' plans), in the order they started. */
  plans: PlanView[];
  /**
   * What nodes reported for the run views (`report` events: votes' tallies, series points,
   * a node type's own kinds), in order, each with the type of the node that reported it.
   */
  reports: ReportView[];
  /** Each node's latest value (its card shows it), by node id as `nodes` has them. */
  values: Record<string, NodeValue>;
}

/** A node's report, as its node type's run view reads it. */
export interface ReportView {
  seq: number;
  node: string;
  instance: string;
  /** The reporting node's type (from its start; empty when the page missed it). */
  nodeType: string;
  kind: string;
  /** As the node type's schema for `kind` parsed it when the node reported it. */
  data: unknown;
  round?: number;
}

const LOG_LIMIT = 500;

export function idleRun(): RunView {
  return {
    runId: null,
    status: 'idle',
    nodes: {},
    messages: [],
    outputs: null,
    usage: { calls: 0, tokens: 0, costUsd: 0 },
    human: [],
    simulated: false,
    log: [],
    instances: {},
    rounds: [],
    pauses: [],
    live: {},
    plans: [],
    reports: [],
    values: {},
  };
}

/** A run that has been asked for: every node waits. */
export function startingRun(nodeIds: readonly string[]): RunView {
  const run = idleRun();
  run.status = 'starting';
  for (const id of nodeIds) run.nodes[id] = { state: 'waiting', active: 0, finished: 0 };
  return run;
}

/**
 * A pushed event as a `RunEvent`, or undefined when it is not one this page knows (a newer
 * backend's): those are left out of the view rather than guessed at. The studio and the desktop
 * app send the engine's events as the engine wrote them, so the type tells the shape.
 */
export function asRunEvent(raw: Record<string, unknown>): RunEvent | undefined {
  const type = raw.type;
  return typeof type === 'string' && Object.hasOwn(RUN_EVENT_TYPES, type)
    ? (raw as unknown as RunEvent)
    : undefined;
}

/** Folds a batch of events into the view; returns a new view (the old one is not changed). */
export function applyEvents(
  view: RunView,
  events: ReadonlyArray<Record<string, unknown>>,
): RunView {
  const known = events.flatMap((raw) => asRunEvent(raw) ?? []);
  const next: RunView = {
    ...view,
    nodes: { ...view.nodes },
    usage: { ...view.usage },
    instances: { ...view.instances },
    live: { ...view.live },
    values: { ...view.values },
    log: [...view.log, ...known].slice(-LOG_LIMIT),
  };
  for (const e of known) foldEvent(next, e);
  return next;
}

/** "vlm#2@r3" → "vlm": the node an instance id belongs to. */
export function nodeOfInstance(instance: string): string {
  return instance.replace(/[#@].*$/, '');
}

/**
 * "artists#3/storm" → "storm": the canvas node of a loop. A loop inside a replicated group is
 * named by its copy's path; its card shows the round a copy last started.
 */
export function nodeOfLoop(loop: string): string {
  return (loop.split('/').at(-1) ?? loop).replace(/#\d+$/, '');
}
