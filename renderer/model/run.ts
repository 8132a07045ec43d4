/**
 * What the editor shows of a run, folded from the pushed event stream. The event shapes are the
 * engine's (app/runtime/events.ts); they are restated here, loosely, because the page may not
 * import the runtime, and every field is read defensively so an older or newer backend degrades
 * to missing details rather than a crash.
 */

export type NodeRunState = 'waiting' | 'running' | 'done' | 'failed' | 'paused';
export type RunStatus =
  | 'idle'
  | 'starting'
  | 'running'
  | 'paused'
  | 'succeeded'
  | 'failed'
  | 'cancelled';

export interface Checkpoint {
  kind: 'node' | 'message' | 'round';
  node?: string;
  instance?: string;
  loop?: string;
  round?: number;
  text?: string;
}

export interface TranscriptMessage {
  seq: number;
  from: string;
  node: string;
  to: string[];
  text: string;
  loop?: string;
  round?: number;
  stage?: string;
  simulated: boolean;
}

export interface TallyLike {
  rule?: string;
  candidates?: string[];
  counts?: Record<string, number>;
  ranking?: string[];
  winner?: string | null;
  reason?: string;
  totals?: { ballots: number; valid: number };
  ballots?: Array<{
    voter: string;
    value: unknown;
    choices?: string[];
    valid?: boolean;
    reason?: string;
  }>;
  /** Candidates tied at the top before any tie-break. */
  tied?: string[];
  /** How a tie at the top was broken. */
  tieBreak?: { rule?: string; chosen?: string; reason?: string };
}

export interface TallyView {
  seq: number;
  node: string;
  instance: string;
  tally: TallyLike;
}

export interface NodeRun {
  state: NodeRunState;
  /** Instances running now (replicas run side by side). */
  active: number;
  finished: number;
  /** A container's current round. */
  round?: number;
  maxRounds?: number;
  error?: string;
  /** The state to go back to when a pause here ends. */
  before?: NodeRunState;
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
  document: { name?: string; description?: string; nodes: Array<Record<string, unknown>> };
  /** The state of each of its nodes, by node id. */
  steps: Record<string, 'running' | 'done' | 'failed'>;
  outputs?: Record<string, unknown>;
}

/** One step of an environment episode, as the Episode tab lists it. */
export interface EpisodeStepView {
  step: number;
  commands: Array<{ command: string; by: string }>;
  rejections: Array<{ command: string; reason: string; message: string }>;
  completed: string[];
  failed: string[];
}

/** An episode a dispatcher plays: its steps and the world as the last step left it. */
export interface EpisodeView {
  node: string;
  instance: string;
  steps: EpisodeStepView[];
  state: Record<string, unknown>;
  done: boolean;
  /** Some of its commands came from made-up (simulated) answers. */
  simulated: boolean;
}

export interface RunView {
  runId: string | null;
  status: RunStatus;
  mode?: string;
  nodes: Record<string, NodeRun>;
  messages: TranscriptMessage[];
  tallies: TallyView[];
  outputs: Record<string, unknown> | null;
  usage: { calls: number; tokens: number; costUsd: number };
  paused?: { reason: string; at: Checkpoint };
  error?: string;
  human: Array<{ node: string; name: string; prompt: string; answer?: string }>;
  /** Any answer in this run came from the simulated provider. */
  simulated: boolean;
  /** Recent events, newest last, for the raw event log. */
  log: Array<Record<string, unknown>>;
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
  /** Environment episodes dispatchers played, by instance. */
  episodes: EpisodeView[];
}

const LOG_LIMIT = 500;

export function idleRun(): RunView {
  return {
    runId: null,
    status: 'idle',
    nodes: {},
    messages: [],
    tallies: [],
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
    episodes: [],
  };
}

/** A run that has been asked for: every node waits. */
export function startingRun(nodeIds: readonly string[]): RunView {
  const run = idleRun();
  run.status = 'starting';
  for (const id of nodeIds) run.nodes[id] = { state: 'waiting', active: 0, finished: 0 };
  return run;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** Folds a batch of events into the view; returns a new view (the old one is not changed). */
export function applyEvents(
  view: RunView,
  events: ReadonlyArray<Record<string, unknown>>,
): RunView {
  const next: RunView = {
    ...view,
    nodes: { ...view.nodes },
    messages: view.messages,
    tallies: view.tallies,
    human: view.human,
    usage: { ...view.usage },
    instances: { ...view.instances },
    rounds: view.rounds,
    plans: view.plans,
    episodes: view.episodes,
    live: { ...view.live },
    log: [...view.log, ...events].slice(-LOG_LIMIT),
  };
  for (const e of events) apply(next, e);
  return next;
}

function node(view: RunView, id: string): NodeRun {
  const current = view.nodes[id] ?? { state: 'waiting', active: 0, finished: 0 };
  const copy = { ...current };
  view.nodes[id] = copy;
  return copy;
}

function instanceOf(view: RunView, e: Record<string, unknown>): InstanceRun | undefined {
  const id = str(e.instance);
  const current = id ? view.instances[id] : undefined;
  if (!id || !current) return undefined;
  const copy = { ...current };
  view.instances[id] = copy;
  return copy;
}

/**
 * A node event of a plan's node goes to that plan, not to the canvas: the plan's node ids are
 * its own and may repeat the document's (both can have an `answer`). True when it was taken.
 */
function applyToPlan(view: RunView, type: string | undefined, e: Record<string, unknown>): boolean {
  if (type !== 'node.started' && type !== 'node.finished' && type !== 'node.failed') return false;
  const instance = str(e.instance);
  const index = instance ? view.plans.findIndex((p) => instance.startsWith(p.prefix)) : -1;
  if (index < 0 || !instance) return false;
  const plan = view.plans[index]!;
  const step = instance.slice(plan.prefix.length).split('/')[0]!;
  const state = type === 'node.started' ? 'running' : type === 'node.finished' ? 'done' : 'failed';
  view.plans = view.plans.map((p, i) =>
    i === index ? { ...p, steps: { ...p.steps, [step]: state } } : p,
  );
  return true;
}

function apply(view: RunView, e: Record<string, unknown>): void {
  const type = str(e.type);
  const seq = num(e.seq) ?? 0;
  const time = num(e.time);
  if (applyToPlan(view, type, e)) return;
  switch (type) {
    case 'subgraph.started': {
      const document = e.document as PlanView['document'] | undefined;
      const prefix = str(e.prefix);
      if (!document || !Array.isArray(document.nodes) || !prefix) return;
      view.plans = [
        ...view.plans,
        {
          seq,
          node: str(e.node) ?? '?',
          instance: str(e.instance) ?? '',
          prefix,
          document,
          steps: {},
        },
      ];
      return;
    }
    case 'environment.step': {
      const instance = str(e.instance) ?? '';
      const step: EpisodeStepView = {
        step: num(e.step) ?? 0,
        commands: Array.isArray(e.commands) ? (e.commands as EpisodeStepView['commands']) : [],
        rejections: Array.isArray(e.rejections)
          ? (e.rejections as EpisodeStepView['rejections'])
          : [],
        completed: Array.isArray(e.completed) ? (e.completed as string[]) : [],
        failed: Array.isArray(e.failed) ? (e.failed as string[]) : [],
      };
      const state = (e.state as Record<string, unknown> | undefined) ?? {};
      const existing = view.episodes.find((x) => x.instance === instance);
      const next: EpisodeView = existing
        ? {
            ...existing,
            steps: [...existing.steps, step],
            state,
            done: e.done === true,
            simulated: existing.simulated || e.simulated === true,
          }
        : {
            node: str(e.node) ?? '?',
            instance,
            steps: [step],
            state,
            done: e.done === true,
            simulated: e.simulated === true,
          };
      view.episodes = existing
        ? view.episodes.map((x) => (x === existing ? next : x))
        : [...view.episodes, next];
      return;
    }
    case 'expert.response':
      // Made-up expert answers (an image the simulator passed through) are labelled like text.
      if (e.simulated === true) view.simulated = true;
      return;
    case 'subgraph.finished': {
      const instance = str(e.instance);
      view.plans = view.plans.map((p) =>
        p.instance === instance
          ? { ...p, outputs: (e.outputs as Record<string, unknown> | undefined) ?? {} }
          : p,
      );
      return;
    }
    case 'run.started':
      view.status = 'running';
      view.startedAt ??= time;
      view.mode = str(e.mode);
      if (view.mode === 'simulated') view.simulated = true;
      return;
    case 'run.finished': {
      const status = str(e.status);
      view.status =
        status === 'succeeded' || status === 'failed' || status === 'cancelled' ? status : 'failed';
      view.outputs = (e.outputs as Record<string, unknown> | undefined) ?? {};
      view.error = str(e.error);
      view.paused = undefined;
      view.endedAt = time;
      view.live = {};
      for (const [id, i] of Object.entries(view.instances)) {
        if (i.state === 'running') {
          view.instances[id] = {
            ...i,
            state: view.status === 'succeeded' ? 'done' : 'failed',
            end: time,
          };
        }
      }
      view.rounds = view.rounds.map((r) => (r.end === undefined ? { ...r, end: time } : r));
      closePause(view, time);
      const usage = e.usage as
        | { calls?: number; totalTokens?: number; costUsd?: number }
        | undefined;
      if (usage) {
        view.usage = {
          calls: usage.calls ?? view.usage.calls,
          tokens: usage.totalTokens ?? view.usage.tokens,
          costUsd: usage.costUsd ?? view.usage.costUsd,
        };
      }
      // Whatever was still under way when the run ended did not finish.
      for (const [id, n] of Object.entries(view.nodes)) {
        if (n.state === 'running' || n.state === 'paused') {
          view.nodes[id] = { ...n, state: view.status === 'succeeded' ? 'done' : 'failed' };
        }
      }
      return;
    }
    case 'node.started': {
      const id = str(e.node);
      if (!id) return;
      const n = node(view, id);
      n.active++;
      n.state = 'running';
      const instance = str(e.instance) ?? id;
      view.instances[instance] = {
        instance,
        node: id,
        nodeType: str(e.nodeType),
        round: num(e.round),
        stage: str(e.stage),
        start: time ?? 0,
        state: 'running',
        calls: 0,
        tokens: 0,
        costUsd: 0,
      };
      return;
    }
    case 'node.finished': {
      const id = str(e.node);
      if (!id) return;
      const n = node(view, id);
      n.active = Math.max(0, n.active - 1);
      n.finished++;
      if (n.state !== 'failed') n.state = n.active > 0 ? 'running' : 'done';
      const i = instanceOf(view, e);
      if (i) {
        i.state = 'done';
        i.end = time;
      }
      return;
    }
    case 'node.failed': {
      const id = str(e.node);
      if (!id) return;
      const n = node(view, id);
      n.active = Math.max(0, n.active - 1);
      n.state = 'failed';
      n.error = str(e.error);
      const i = instanceOf(view, e);
      if (i) {
        i.state = 'failed';
        i.end = time;
        i.error = n.error;
      }
      return;
    }
    case 'model.request': {
      const callId = str(e.callId);
      if (callId) {
        view.live[callId] = {
          node: str(e.node) ?? '?',
          instance: str(e.instance) ?? '',
          text: '',
        };
      }
      return;
    }
    case 'model.delta': {
      const callId = str(e.callId);
      const call = callId ? view.live[callId] : undefined;
      if (callId && call) view.live[callId] = { ...call, text: call.text + (str(e.text) ?? '') };
      return;
    }
    case 'model.error': {
      const callId = str(e.callId);
      if (callId) delete view.live[callId];
      return;
    }
    case 'model.response': {
      view.usage.calls++;
      view.usage.tokens += (num(e.promptTokens) ?? 0) + (num(e.completionTokens) ?? 0);
      view.usage.costUsd += num(e.costUsd) ?? 0;
      if (e.simulated === true) view.simulated = true;
      const callId = str(e.callId);
      if (callId) delete view.live[callId];
      const i = instanceOf(view, e);
      if (i) {
        i.calls++;
        i.tokens += (num(e.promptTokens) ?? 0) + (num(e.completionTokens) ?? 0);
        i.costUsd += num(e.costUsd) ?? 0;
      }
      return;
    }
    case 'message': {
      const message: TranscriptMessage = {
        seq,
        from: str(e.from) ?? str(e.node) ?? '?',
        node: str(e.node) ?? '?',
        to: Array.isArray(e.to) ? e.to.filter((t): t is string => typeof t === 'string') : [],
        text: str(e.text) ?? '',
        loop: str(e.loop),
        round: num(e.round),
        stage: str(e.stage),
        simulated: e.simulated === true,
      };
      if (message.simulated) view.simulated = true;
      view.messages = [...view.messages, message];
      return;
    }
    case 'round.started': {
      const loop = str(e.loop);
      if (!loop) return;
      const n = node(view, loop);
      n.state = 'running';
      n.round = num(e.round);
      n.maxRounds = num(e.maxRounds);
      const round = num(e.round);
      if (round !== undefined) {
        view.rounds = [
          ...view.rounds,
          { loop, round, maxRounds: num(e.maxRounds), start: time ?? 0 },
        ];
      }
      return;
    }
    case 'round.finished': {
      const loop = str(e.loop);
      const round = num(e.round);
      view.rounds = view.rounds.map((r) =>
        r.loop === loop && r.round === round && r.end === undefined ? { ...r, end: time } : r,
      );
      return;
    }
    case 'vote': {
      const tally = e.tally as TallyLike | undefined;
      if (!tally || typeof tally !== 'object') return;
      view.tallies = [
        ...view.tallies,
        { seq, node: str(e.node) ?? '?', instance: str(e.instance) ?? '', tally },
      ];
      return;
    }
    case 'human.request':
      view.human = [
        ...view.human,
        { node: str(e.node) ?? '?', name: str(e.name) ?? '', prompt: str(e.prompt) ?? '' },
      ];
      return;
    case 'human.response': {
      const name = str(e.name);
      view.human = view.human.map((h) =>
        h.name === name && h.answer === undefined ? { ...h, answer: str(e.answer) ?? '' } : h,
      );
      return;
    }
    case 'paused': {
      const at = (e.at ?? {}) as Checkpoint;
      view.status = 'paused';
      view.paused = { reason: str(e.reason) ?? 'user', at };
      const open = view.pauses.at(-1);
      if (time !== undefined && (!open || open.end !== undefined)) {
        view.pauses = [...view.pauses, { start: time }];
      }
      const id = at.kind === 'round' ? at.loop : at.node;
      if (id) {
        const n = node(view, id);
        if (n.state !== 'paused') n.before = n.state;
        n.state = 'paused';
      }
      return;
    }
    case 'resumed': {
      view.status = 'running';
      view.paused = undefined;
      closePause(view, time);
      for (const [id, n] of Object.entries(view.nodes)) {
        if (n.state === 'paused') view.nodes[id] = { ...n, state: n.before ?? 'waiting' };
      }
      return;
    }
    case 'error':
      view.error = str(e.message) ?? view.error;
      return;
    default:
      return;
  }
}

function closePause(view: RunView, time: number | undefined): void {
  const last = view.pauses.at(-1);
  if (last && last.end === undefined && time !== undefined) {
    view.pauses = [...view.pauses.slice(0, -1), { ...last, end: time }];
  }
}

/** "vlm#2@r3" → "vlm": the node an instance id belongs to. */
export function nodeOfInstance(instance: string): string {
  return instance.replace(/[#@].*$/, '');
}
