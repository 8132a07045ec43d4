/**
 * Per-agent credit, counterfactually: the run again with one member left out, once per member.
 * Each such run is a fork of the recorded run from where the member first started; every
 * instance of the member gives what its node's `credit.leaveOut` hook says (an agent: no text,
 * no message) and every call whose request did not change is answered from the run's record,
 * so only what depends on the member is asked again. What the member changed downstream is its
 * influence: the calls re-sent, the output and the score, and the first call whose request
 * changed (the decisive message).
 */
import type { CompiledGraph } from '../compiler/index.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { RunRecord, RunStore } from '../store/index.ts';
import { RunsError } from './errors.ts';
import { type ForkPlan, planFork } from './fork.ts';

type Compiled = Extract<CompiledGraph, object>;

/** What is left out at a time: a member in every round, or a member in one round. */
export type CreditUnit = 'member' | 'round';

/** A member of a run's society: a node, or one replica of a replicated one (`member#2`). */
export interface CreditMember {
  /** How tables and flags name it: the instance without its round (`member#2`), or with it by round. */
  name: string;
  /** Its node's id. */
  node: string;
  /** Every instance of it the run started (`member#2@r1`, `member#2@r2`, …). */
  instances: string[];
  /** The event at which its first instance started: the fork point. */
  firstSeq: number;
}

/**
 * The members of the run's society, in the order they first spoke: the nodes a container
 * declares as its members (a mindstorm's), or when none does, every replicated node; each
 * replica a member of its own. Only nodes whose spec says how they are left out count. By
 * round, each member once per round it spoke in (`member#2@r1`).
 */
export function creditMembers(
  compiled: Compiled,
  events: readonly RunEvent[],
  by: CreditUnit = 'member',
): CreditMember[] {
  const nodes = compiled.plan.nodes;
  const declared = new Set<string>();
  for (const node of nodes.values())
    for (const id of node.spec.credit?.members?.(node.data as never) ?? []) declared.add(id);
  const candidates = new Set(
    (declared.size > 0
      ? [...declared]
      : [...nodes.values()].filter((n) => n.replicate !== undefined).map((n) => n.id)
    ).filter((id) => nodes.get(id)?.spec.credit?.leaveOut !== undefined),
  );
  const members = new Map<string, CreditMember>();
  for (const event of events) {
    if (event.type !== 'node.started' || !candidates.has(event.node)) continue;
    const base = event.instance.split('@')[0]!;
    // An instance of a node of the same id inside a child graph is not this member.
    if (base.split('#')[0] !== event.node) continue;
    // By round: the member in one round (`member#2@r1`), its revision of that round included.
    const name = by === 'member' ? base : event.instance.split(':')[0]!;
    const member = members.get(name) ?? {
      name,
      node: event.node,
      instances: [],
      firstSeq: event.seq,
    };
    if (!member.instances.includes(event.instance)) member.instances.push(event.instance);
    members.set(name, member);
  }
  return [...members.values()];
}

/**
 * Plans the fork of `parent` without `member`: it keeps the parent's events before the member
 * first started, and every instance of the member gives its node's left-out outputs.
 */
export function planLeaveOut(
  store: RunStore,
  parent: RunRecord,
  compiled: Compiled,
  member: CreditMember,
  simulate = false,
): ForkPlan {
  const node = compiled.plan.nodes.get(member.node);
  const leaveOut = node?.spec.credit?.leaveOut;
  if (!node || !leaveOut) throw new RunsError(`${member.name} cannot be left out of the run`);
  const plan = planFork(store, parent, compiled, { edits: {}, at: member.firstSeq, simulate });
  // `$leftOut` tells the runner to send no message, and a fork of this fork to leave it out too.
  const given = { ...leaveOut(node.data as never), $leftOut: true };
  plan.options.overrides = {
    ...plan.options.overrides,
    ...Object.fromEntries(member.instances.map((instance) => [instance, given])),
  };
  return plan;
}

/** What leaving a member out changed. */
export interface MemberInfluence {
  member: string;
  /** The fork that left it out, one `society show` away. */
  runId: string;
  /** Its own instances, which the fork did not run. */
  leftOut: number;
  /** Calls asked again because their request changed (sent to the provider or the simulator). */
  resent: number;
  /**
   * The run's calls the fork reused: those it kept from before the fork point, and those its
   * record answered after it (their request unchanged).
   */
  fromRecord: number;
  /** Whether the compared output differs from the run's. */
  outputChanged: boolean;
  /** The compared output as the fork gave it. */
  output: unknown;
  /** The score without the member, and its difference from the run's, when there is a score. */
  score?: number;
  scoreDelta?: number;
  /** The first call whose request changed: the member's decisive message reached it. */
  decisive?: { instance: string; seq: number };
  /** The fork did not succeed: why. */
  error?: string;
}

/**
 * Counts a leave-out fork's calls from its log, whose first `kept` events are its parent's:
 * each call kept or answered from the record, or asked again (and the first of those).
 */
export function forkCalls(
  events: readonly RunEvent[],
  kept: number,
): Pick<MemberInfluence, 'resent' | 'fromRecord' | 'decisive'> {
  const fresh = events.slice(kept);
  const requests = new Map<string, { instance: string; seq: number }>();
  let resent = 0;
  let fromRecord = events
    .slice(0, kept)
    .filter((e) => e.type === 'model.response' || e.type === 'expert.response').length;
  let decisive: MemberInfluence['decisive'];
  for (const event of fresh) {
    if (event.type === 'model.request' || event.type === 'expert.request')
      requests.set(event.callId, { instance: event.instance, seq: event.seq });
    if (event.type !== 'model.response' && event.type !== 'expert.response') continue;
    if (event.source === 'cassette') {
      fromRecord++;
      continue;
    }
    resent++;
    const asked = requests.get(event.callId) ?? { instance: event.instance, seq: event.seq };
    if (!decisive || asked.seq < decisive.seq) decisive = asked;
  }
  return { resent, fromRecord, ...(decisive ? { decisive } : {}) };
}

/**
 * A member's row from its fork: the fork's calls (its log, whose first `kept` events are the
 * parent's), its compared output against the parent's, and its score against the parent's.
 */
export function memberInfluence(fork: {
  member: CreditMember;
  runId: string;
  events: readonly RunEvent[];
  kept: number;
  result: { status: string; outputs: Record<string, unknown>; error?: string };
  /** The compared output's name and the parent's value of it. */
  output: string;
  parentValue: unknown;
  score?: number | undefined;
  baseline?: number | undefined;
}): MemberInfluence {
  const { result, score, baseline } = fork;
  const value = result.outputs[fork.output];
  return {
    member: fork.member.name,
    runId: fork.runId,
    leftOut: fork.member.instances.length,
    ...forkCalls(fork.events, fork.kept),
    outputChanged: result.status === 'succeeded' && !sameValue(value, fork.parentValue),
    output: value,
    ...(score !== undefined ? { score } : {}),
    ...(score !== undefined && baseline !== undefined ? { scoreDelta: score - baseline } : {}),
    ...(result.error ? { error: result.error } : {}),
  };
}

/** Whether two output values are the same (as stored: JSON). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
