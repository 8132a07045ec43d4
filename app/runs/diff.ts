/**
 * What changed between two runs, as data: outputs, each sender's last message, votes and usage.
 * `society diff` prints it; the studio's run comparison shows it.
 */
import { tallyOf } from '../node-sdk/tally.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { RunRecord } from '../store/index.ts';

/** One side of a diff: which run it is. */
export interface RunDiffSide {
  id: string;
  graph: string;
  status: string;
  mode: string;
  startedAt: number;
  parentRunId?: string;
  forkSeq?: number;
}

/** A sender's message in each run (the last one it sent), and how they compare. */
export interface MessageDiff {
  /** The sending instance, e.g. `member#1@r2`: round and replica are part of it. */
  from: string;
  node: string;
  loop?: string;
  round?: number;
  stage?: string;
  a?: { text: string; simulated: boolean };
  b?: { text: string; simulated: boolean };
  change: 'same' | 'changed' | 'onlyA' | 'onlyB';
}

/** What a run's calls came to. */
export interface UsageSummary {
  calls: number;
  /** Calls that went to a model (not answered from a record, a cassette or the simulator). */
  live: number;
  tokens: number;
  costUsd: number;
}

/** A vote's outcome in each run: the winner (null: no winner) and the counts. */
export interface VoteDiff {
  instance: string;
  a?: { winner: string | null; counts: Record<string, number> };
  b?: { winner: string | null; counts: Record<string, number> };
  same: boolean;
}

/** What changed between two runs, as data: `society diff` prints it, the editor shows it. */
export interface RunDiff {
  a: RunDiffSide;
  b: RunDiffSide;
  /** One run forks the other after event `afterSeq`. */
  fork?: { child: 'a' | 'b'; afterSeq: number };
  outputs: Array<{ name: string; a?: unknown; b?: unknown; same: boolean }>;
  /** Senders in the order A heard from them, then those only B heard from. */
  messages: MessageDiff[];
  votes: VoteDiff[];
  usage: { a: UsageSummary; b: UsageSummary };
}

/** Compares two runs: outputs, each sender's messages, votes and usage. */
export function diffRuns(
  a: RunRecord,
  aEvents: RunEvent[],
  b: RunRecord,
  bEvents: RunEvent[],
): RunDiff {
  const side = (r: RunRecord): RunDiffSide => ({
    id: r.id,
    graph: r.graphName,
    status: r.status,
    mode: r.mode,
    startedAt: r.startedAt,
    ...(r.parentRunId !== undefined ? { parentRunId: r.parentRunId } : {}),
    ...(r.forkSeq !== undefined ? { forkSeq: r.forkSeq } : {}),
  });
  const fork =
    b.parentRunId === a.id && b.forkSeq !== undefined
      ? { child: 'b' as const, afterSeq: b.forkSeq }
      : a.parentRunId === b.id && a.forkSeq !== undefined
        ? { child: 'a' as const, afterSeq: a.forkSeq }
        : undefined;

  const names = [...new Set([...Object.keys(a.outputs ?? {}), ...Object.keys(b.outputs ?? {})])];
  const outputs = names.map((name) => {
    const left = a.outputs?.[name];
    const right = b.outputs?.[name];
    return {
      name,
      ...(left !== undefined ? { a: left } : {}),
      ...(right !== undefined ? { b: right } : {}),
      same: JSON.stringify(left) === JSON.stringify(right),
    };
  });

  type Said = Extract<RunEvent, { type: 'message' }>;
  const lastSaid = (events: RunEvent[]) =>
    new Map(events.flatMap((e) => (e.type === 'message' ? [[e.from, e] as const] : [])));
  const left = lastSaid(aEvents);
  const right = lastSaid(bEvents);
  const messages = [...new Set([...left.keys(), ...right.keys()])].map((from): MessageDiff => {
    const x = left.get(from);
    const y = right.get(from);
    const where = (y ?? x) as Said;
    return {
      from,
      node: where.node,
      ...(where.loop !== undefined ? { loop: where.loop } : {}),
      ...(where.round !== undefined ? { round: where.round } : {}),
      ...(where.stage !== undefined ? { stage: where.stage } : {}),
      ...(x ? { a: { text: x.text, simulated: x.simulated } } : {}),
      ...(y ? { b: { text: y.text, simulated: y.simulated } } : {}),
      change: !y ? 'onlyA' : !x ? 'onlyB' : x.text === y.text ? 'same' : 'changed',
    };
  });

  const polls = (events: RunEvent[]) =>
    new Map(
      events.flatMap((e) => {
        const tally = e.type === 'report' ? tallyOf(e) : undefined;
        return e.type === 'report' && tally
          ? [[e.instance, { winner: tally.winner, counts: { ...tally.counts } }] as const]
          : [];
      }),
    );
  const va = polls(aEvents);
  const vb = polls(bEvents);
  const votes = [...new Set([...va.keys(), ...vb.keys()])].map((instance): VoteDiff => {
    const x = va.get(instance);
    const y = vb.get(instance);
    return {
      instance,
      ...(x ? { a: x } : {}),
      ...(y ? { b: y } : {}),
      same: (x?.winner ?? 'none') === (y?.winner ?? 'none'),
    };
  });

  const usage = (events: RunEvent[]): UsageSummary => {
    const calls = events.flatMap((e) => (e.type === 'model.response' ? [e] : []));
    return {
      calls: calls.length,
      live: calls.filter((e) => e.source === 'live').length,
      tokens: calls.reduce((n, e) => n + e.promptTokens + e.completionTokens, 0),
      costUsd: calls.reduce((n, e) => n + (e.costUsd ?? 0), 0),
    };
  };

  return {
    a: side(a),
    b: side(b),
    ...(fork ? { fork } : {}),
    outputs,
    messages,
    votes,
    usage: { a: usage(aEvents), b: usage(bEvents) },
  };
}
