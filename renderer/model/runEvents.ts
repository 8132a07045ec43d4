/**
 * Folds one engine event into the editor's view of a run (run.ts). One case per `RunEvent`
 * type, checked exhaustively: an event the engine adds does not compile here until the view
 * says what it does with it. Events of runs stored by older builds may lack a detail or two;
 * the few checks below keep such a run readable instead of breaking the panel.
 */
import type { RunEvent } from '../../app/runtime/events.ts';
import { keyAdvice, missingKeyOf } from './keyAdvice.ts';
import {
  type InstanceRun,
  type NodeRun,
  nodeOfLoop,
  type RunView,
  type TranscriptMessage,
} from './run.ts';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/**
 * Applies `e` to `view`, a copy made for this batch (applyEvents): its top-level records may be
 * written, while lists and the records in them are replaced, never changed in place.
 */
export function foldEvent(view: RunView, e: RunEvent): void {
  if (foldIntoPlan(view, e)) return;
  switch (e.type) {
    case 'run.started':
      view.status = 'running';
      view.startedAt ??= e.time;
      view.mode = e.mode;
      if (e.mode === 'simulated') view.simulated = true;
      return;
    case 'run.finished':
      finishRun(view, e);
      return;
    case 'node.started': {
      const n = node(view, e.node);
      n.active++;
      n.state = 'running';
      const instance = e.instance ?? e.node;
      view.instances[instance] = {
        instance,
        node: e.node,
        nodeType: e.nodeType,
        round: e.round,
        stage: e.stage,
        start: e.time ?? 0,
        state: 'running',
        calls: 0,
        tokens: 0,
        costUsd: 0,
      };
      return;
    }
    case 'node.finished': {
      const n = node(view, e.node);
      n.active = Math.max(0, n.active - 1);
      n.finished++;
      if (n.state !== 'failed') n.state = n.active > 0 ? 'running' : 'done';
      const i = instance(view, e.instance);
      if (i) {
        i.state = 'done';
        i.end = e.time;
      }
      view.values[e.node] = {
        instance: e.instance ?? e.node,
        outputs: e.outputs ?? {},
        ...(e.notTaken ? { notTaken: e.notTaken } : {}),
      };
      return;
    }
    case 'node.failed': {
      const n = node(view, e.node);
      n.active = Math.max(0, n.active - 1);
      n.state = 'failed';
      n.error = view.missingKey?.node === e.node ? keyAdvice(view.missingKey) : e.error;
      const i = instance(view, e.instance);
      if (i) {
        i.state = 'failed';
        i.end = e.time;
        i.error = e.error;
      }
      return;
    }
    case 'node.skipped': {
      // A branch not taken: the node never starts. A copy that ran (another replica, an earlier
      // round) keeps its state; only a node that did nothing else shows as skipped.
      const n = node(view, e.node);
      if (n.state === 'waiting') n.state = 'skipped';
      n.skipped = `${e.from}: ${e.reason}`;
      return;
    }
    case 'model.request':
      view.live[e.callId] = { node: e.node, instance: e.instance ?? '', text: '' };
      return;
    case 'model.delta': {
      const call = view.live[e.callId];
      if (call) view.live[e.callId] = { ...call, text: call.text + e.text };
      return;
    }
    case 'model.response': {
      const tokens = e.promptTokens + e.completionTokens;
      view.usage.calls++;
      view.usage.tokens += tokens;
      view.usage.costUsd += e.costUsd ?? 0;
      if (e.simulated) view.simulated = true;
      delete view.live[e.callId];
      const i = instance(view, e.instance);
      if (i) {
        i.calls++;
        i.tokens += tokens;
        i.costUsd += e.costUsd ?? 0;
      }
      return;
    }
    case 'model.error':
      delete view.live[e.callId];
      view.missingKey ??= missingKeyOf(e);
      return;
    case 'expert.error':
      view.missingKey ??= missingKeyOf(e);
      return;
    case 'model.retry':
    case 'expert.request':
      // Shown in the event log and the calls list; they change nothing folded here.
      return;
    case 'expert.response':
      // Made-up expert answers (an image the simulator passed through) are labelled like text.
      if (e.simulated) view.simulated = true;
      return;
    case 'tool.call':
    case 'tool.error':
      // Shown in the event log and in the context view (the tool messages an agent is sent).
      return;
    case 'tool.result':
      // A made-up tool result labels the run like a made-up answer.
      if (e.simulated) view.simulated = true;
      return;
    case 'subgraph.started':
      view.plans = [
        ...view.plans,
        {
          seq: e.seq,
          node: e.node,
          instance: e.instance,
          prefix: e.prefix,
          document: e.document,
          steps: {},
        },
      ];
      return;
    case 'subgraph.finished':
      view.plans = view.plans.map((p) =>
        p.instance === e.instance ? { ...p, outputs: e.outputs ?? {} } : p,
      );
      return;
    case 'message': {
      const { type: _type, runId: _runId, time: _time, ...message } = e;
      const shown: TranscriptMessage = { ...message, to: e.to ?? [] };
      if (shown.simulated) view.simulated = true;
      view.messages = [...view.messages, shown];
      return;
    }
    case 'round.started': {
      const n = node(view, nodeOfLoop(e.loop));
      n.state = 'running';
      n.round = e.round;
      n.maxRounds = e.maxRounds;
      view.rounds = [
        ...view.rounds,
        { loop: e.loop, round: e.round, maxRounds: e.maxRounds, start: e.time ?? 0 },
      ];
      return;
    }
    case 'round.finished':
      view.rounds = view.rounds.map((r) =>
        r.loop === e.loop && r.round === e.round && r.end === undefined ? { ...r, end: e.time } : r,
      );
      return;
    case 'report': {
      // A started node reports, so its start says which node type's view shows it; a loop's
      // report (a mindstorm's vote) is under its entry's key, known by the loop's node id. Views
      // keyed by kind (votes, analytics) read it whatever its type.
      const nodeType =
        view.instances[e.instance]?.nodeType ??
        Object.values(view.instances).find((i) => i.node === e.node)?.nodeType ??
        '';
      view.reports = [
        ...view.reports,
        {
          seq: e.seq,
          node: e.node,
          instance: e.instance,
          nodeType,
          kind: e.kind,
          data: e.data,
          ...(e.round !== undefined ? { round: e.round } : {}),
        },
      ];
      return;
    }
    case 'human.request':
      view.human = [...view.human, { node: e.node, name: e.name, prompt: e.prompt }];
      return;
    case 'human.response':
      view.human = view.human.map((h) =>
        h.name === e.name && h.answer === undefined ? { ...h, answer: e.answer } : h,
      );
      return;
    case 'paused': {
      view.status = 'paused';
      view.paused = { reason: e.reason, at: e.at };
      const open = view.pauses.at(-1);
      if (e.time !== undefined && (!open || open.end !== undefined)) {
        view.pauses = [...view.pauses, { start: e.time }];
      }
      const n = node(view, e.at.kind === 'round' ? nodeOfLoop(e.at.loop) : e.at.node);
      if (n.state !== 'paused') n.before = n.state;
      n.state = 'paused';
      // A held message is the node's value until it is delivered (as proposed or as edited).
      if (e.at.kind === 'message') {
        view.values[e.at.node] = {
          instance: e.at.instance,
          outputs: { text: e.at.text },
          held: true,
        };
      }
      return;
    }
    case 'resumed':
      view.status = 'running';
      view.paused = undefined;
      closePause(view, e.time);
      for (const [id, n] of Object.entries(view.nodes)) {
        if (n.state === 'paused') view.nodes[id] = { ...n, state: n.before ?? 'waiting' };
      }
      for (const [id, v] of Object.entries(view.values)) {
        if (v.held) view.values[id] = { ...v, held: false };
      }
      return;
    case 'error':
      view.error = e.message;
      return;
    default:
      e satisfies never;
  }
}

/** The run ended: whatever was still under way did not finish. */
function finishRun(view: RunView, e: EventOf<'run.finished'>): void {
  view.status = e.status;
  // A replay that went beyond its cassette ends saying how it answered (the Runs list's mode).
  if (e.mode) view.mode = e.mode;
  view.outputs = e.outputs ?? {};
  view.error = view.missingKey && e.error ? keyAdvice(view.missingKey) : e.error;
  view.paused = undefined;
  view.endedAt = e.time;
  view.live = {};
  const ended = view.status === 'succeeded' ? 'done' : 'failed';
  for (const [id, i] of Object.entries(view.instances)) {
    if (i.state === 'running') view.instances[id] = { ...i, state: ended, end: e.time };
  }
  view.rounds = view.rounds.map((r) => (r.end === undefined ? { ...r, end: e.time } : r));
  closePause(view, e.time);
  if (e.usage) {
    view.usage = {
      calls: e.usage.calls ?? view.usage.calls,
      tokens: e.usage.totalTokens ?? view.usage.tokens,
      costUsd: e.usage.costUsd ?? view.usage.costUsd,
    };
  }
  for (const [id, n] of Object.entries(view.nodes)) {
    if (n.state === 'running' || n.state === 'paused') view.nodes[id] = { ...n, state: ended };
  }
}

/**
 * A node event of a plan's node goes to that plan, not to the canvas: the plan's node ids are
 * its own and may repeat the document's (both can have an `answer`). A step on a branch the
 * plan did not take shows as skipped there, with why. True when it was taken.
 */
function foldIntoPlan(view: RunView, e: RunEvent): boolean {
  if (
    e.type !== 'node.started' &&
    e.type !== 'node.finished' &&
    e.type !== 'node.failed' &&
    e.type !== 'node.skipped'
  )
    return false;
  const index = e.instance ? view.plans.findIndex((p) => e.instance.startsWith(p.prefix)) : -1;
  const plan = view.plans[index];
  if (!plan) return false;
  const step = e.instance.slice(plan.prefix.length).split('/')[0]!;
  const state = PLAN_STEP_STATE[e.type];
  // A skip never hides what a step already did (a copy that ran in an earlier round).
  if (state === 'skipped' && plan.steps[step] !== undefined) return true;
  const skipped =
    e.type === 'node.skipped' ? { ...plan.skipped, [step]: `${e.from}: ${e.reason}` } : undefined;
  view.plans = view.plans.map((p, i) =>
    i === index
      ? { ...p, steps: { ...p.steps, [step]: state }, ...(skipped ? { skipped } : {}) }
      : p,
  );
  return true;
}

const PLAN_STEP_STATE = {
  'node.started': 'running',
  'node.finished': 'done',
  'node.failed': 'failed',
  'node.skipped': 'skipped',
} as const;

function node(view: RunView, id: string): NodeRun {
  const copy = { ...(view.nodes[id] ?? { state: 'waiting', active: 0, finished: 0 }) };
  view.nodes[id] = copy;
  return copy;
}

function instance(view: RunView, id: string | undefined): InstanceRun | undefined {
  const current = id ? view.instances[id] : undefined;
  if (!id || !current) return undefined;
  const copy = { ...current };
  view.instances[id] = copy;
  return copy;
}

function closePause(view: RunView, time: number | undefined): void {
  const last = view.pauses.at(-1);
  if (last && last.end === undefined && time !== undefined) {
    view.pauses = [...view.pauses.slice(0, -1), { ...last, end: time }];
  }
}
