/**
 * The mindstorm at run time: its stop conditions, what its members see (right to know), the
 * revisions after the rounds (right to change), the members' vote on the leader's question
 * (right to execute), and its outputs. The engine runs the rounds and calls these through the
 * narrow context of app/node-sdk/loop.ts.
 */
import { formatTranscript } from '../../app/node-sdk/define.ts';
import type {
  LoopOwnView,
  LoopRuntime,
  LoopStepContext,
  LoopUsage,
  NodeValues,
} from '../../app/node-sdk/loop.ts';
import { parseAnswer } from '../agent/parse.ts';
import type { AgentData } from '../agent/spec.ts';
import { tallyVotes, type VoteTally } from '../vote/tally.ts';
import {
  effectiveRights,
  type MindstormData,
  MindstormPhase,
  type MindstormView,
  type StopCondition,
} from './rights.ts';
import { memberName, visibility } from './topology.ts';

export const mindstormLoop: LoopRuntime<MindstormData> = {
  stopReason(data, current, previous, usage) {
    for (const condition of data.until) {
      const reason = checkCondition(condition, current, previous, usage);
      if (reason) return reason;
    }
    return undefined;
  },

  view({ data, node, replica, stage, state, phase: asked, replicated, inputsAnswered }) {
    // Only the mindstorm's own steps ask for a turn outside the rounds (see `revise`, `vote`).
    const phase = asked && MindstormPhase.parse(asked);
    const rights = effectiveRights(data);
    const member = data.members.includes(node);
    const stopKeywords = data.until.flatMap((c) =>
      c.kind === 'keyword' && c.node === node ? [c.keyword] : [],
    );
    const view: LoopOwnView<MindstormView> = {
      structure: data.structure,
      rights,
      member,
      ...(stopKeywords.length > 0 ? { stopKeywords } : {}),
    };
    // Revisions and ballots are worded by the mindstorm: the member answers its words alone.
    if (phase?.kind === 'revise') {
      const { question, options } = phase;
      return {
        ...view,
        wording: wording(data, 'change', { question, options, round: state.round }),
      };
    }
    if (phase?.kind === 'ballot') {
      return { ...view, wording: wording(data, 'execute', { prompt: phase.prompt }) };
    }
    if (!member || !rights.rtk || stage !== 'round' || state.round <= 1) return view;
    // Right to know: what the members answered in the previous round, and what they were asked.
    // Only the answers of the members the topology connects this one to (its own among them).
    const previous = state.history[state.round - 2] ?? {};
    const shown: Array<{ name: string; from: string; text: string }> = [];
    for (const m of data.members) {
      const v = previous[m];
      if (!v) continue;
      // Whether m's answer is a list depends on m alone: members may mix replicated and
      // single agents.
      const texts = asList(v.text, replicated(m));
      const who = (v.$instances as string[]) ?? [];
      for (const [i, t] of texts.entries()) {
        const name = memberName(m, replicated(m) ? i : undefined);
        shown.push({ name, from: who[i] ?? m, text: String(t) });
      }
    }
    const self = memberName(node, replicated(node) ? (replica ?? 0) : undefined);
    const sees =
      data.topology === 'full'
        ? undefined
        : visibility(
            data,
            shown.map((a) => a.name),
          ).get(self);
    const answers = shown
      .filter((a) => !sees || sees.has(a.name))
      .map(({ from, text }) => ({ from, text }));
    const inputs = inputsAnswered(state.round - 1);
    const question = textOf(inputs);
    return {
      ...view,
      peers: { inputs, answers },
      wording: wording(data, 'know', { question, answers, round: state.round }),
    };
  },

  steps: { revise, vote },

  outputs({ data, state, transcript, values }) {
    const leaderText = data.leader ? values[data.leader]?.text : undefined;
    return {
      transcript: formatTranscript(transcript),
      rounds: state.round,
      verdict: typeof leaderText === 'string' ? leaderText : '',
      tally: (state.memo?.tally as VoteTally | undefined) ?? null,
    };
  },
};

/** Right to change (NLSOM App. E.5): each member may revise each round's answer. */
async function revise(ctx: LoopStepContext<MindstormData>) {
  const { data, state, transcript } = ctx;
  const history = state.history;
  for (let r = 1; r <= state.round; r++) {
    const roundValues = history[r - 1]!;
    const options = data.members
      .flatMap((m) => asList(roundValues[m]?.text, ctx.replicas(m) !== undefined))
      .map(String);
    for (const m of data.members) {
      const count = ctx.replicas(m);
      const revised: unknown[] = [];
      for (let i = 0; i < (count ?? 1); i++) {
        const replica = count === undefined ? undefined : i;
        const question = textOf(ctx.inputsAnswered(m, replica, r));
        const { outputs } = await ctx.run(m, replica, { round: r }, {
          kind: 'revise',
          question,
          options,
        } satisfies MindstormPhase);
        const text = resolveOption(String(outputs.text), options);
        revised.push(text);
        const from = ctx.instance(m, replica, r);
        const entry = transcript.find((e) => e.round === r && e.from === from);
        if (entry) entry.text = text;
      }
      roundValues[m] = { ...roundValues[m], text: count === undefined ? revised[0] : revised };
    }
  }
  return { history, values: history[history.length - 1] ?? {} };
}

/** Right to execute: members answer the leader's question and the plurality decides. */
async function vote(ctx: LoopStepContext<MindstormData>) {
  const { data } = ctx;
  const leader = data.leader!;
  const leaderData = ctx.nodeData(leader) as unknown as AgentData;
  const prompt = await ctx.render(leader, leaderData.prompt, 'prompt');
  const ballots: Array<{ voter: string; value: unknown }> = [];
  /** Each ballot as the member's agent read it, simulated label included. */
  const answers: unknown[] = [];
  for (const m of data.members) {
    const count = ctx.replicas(m);
    for (let i = 0; i < (count ?? 1); i++) {
      const replica = count === undefined ? undefined : i;
      const { outputs, instance } = await ctx.run(m, replica, { stage: 'decide' }, {
        kind: 'ballot',
        prompt,
      } satisfies MindstormPhase);
      const read = parseAnswer(String(outputs.text), leaderData.parse);
      answers.push(read);
      ballots.push({
        voter: instance,
        value: typeof read === 'string' ? read.replace(/^\[simulated\]\s*/, '') : read,
      });
    }
  }
  const tally = tallyVotes(ballots, { rule: 'plurality', tieBreak: data.tieBreak, seed: ctx.seed });
  ctx.report('tally', tally);
  // The tally names candidates in a normalised form ("a" for "(a)"). The verdict is the first
  // ballot for the winner as its member answered it, as the leader's own answer would have
  // been (simulated label included), so what reads it sees the same shape under monarchy
  // and democracy.
  const cast = tally.ballots.findIndex((b) => b.valid && b.choices[0] === tally.winner);
  const verdict: NodeValues = {
    text: cast >= 0 ? answers[cast] : (tally.winner ?? ''),
    $instances: [`${ctx.key}:vote`],
  };
  return { values: { [leader]: verdict }, memo: { tally } };
}

/** A right's words for a turn: the mindstorm's template, its variables, and its name. */
function wording(
  data: MindstormData,
  right: keyof MindstormData['prompts'],
  vars: Record<string, unknown>,
) {
  return { template: data.prompts[right], vars, field: `mindstorm prompts.${right}` };
}

/** The text inputs a member answered, as one question. */
function textOf(inputs: Record<string, unknown>): string {
  return Object.values(inputs)
    .filter((v) => typeof v === 'string')
    .join(' ');
}

function checkCondition(
  condition: StopCondition,
  current: Record<string, NodeValues>,
  previous: Record<string, NodeValues> | undefined,
  usage: LoopUsage,
): string | undefined {
  const texts = (values: NodeValues | undefined): string[] =>
    values
      ? Object.entries(values)
          .filter(([k]) => k !== '$instances')
          .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
          .map((v) => normalize(v))
      : [];
  switch (condition.kind) {
    case 'keyword': {
      const keyword = condition.keyword.toLowerCase();
      return texts(current[condition.node]).some((t) => t.includes(keyword))
        ? `"${condition.node}" said "${condition.keyword}"`
        : undefined;
    }
    case 'consensus': {
      const all = condition.nodes.flatMap((n) => texts(current[n]));
      return all.length > 1 && all.every((t) => t === all[0])
        ? `consensus among ${condition.nodes.join(', ')}`
        : undefined;
    }
    case 'unchanged': {
      if (!previous) return undefined;
      const now = texts(current[condition.node]);
      const before = texts(previous[condition.node]);
      return now.length > 0 && JSON.stringify(now) === JSON.stringify(before)
        ? `"${condition.node}" did not change`
        : undefined;
    }
    case 'tokens': {
      const used = usage.promptTokens + usage.completionTokens;
      return used >= condition.max
        ? `used ${count(used)} tokens of its ${count(condition.max)}-token budget`
        : undefined;
    }
    default:
      return condition satisfies never;
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function normalize(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text
    .replace(/^\[simulated\]\s*/, '')
    .trim()
    .toLowerCase()
    .replace(/[.!?]+$/, '');
}

/** A member's answer as a list: one per copy when it is replicated. */
function asList(value: unknown, replicated: boolean): unknown[] {
  if (value === undefined) return [];
  return replicated && Array.isArray(value) ? value : [value];
}

/** A revision answered with an option letter becomes that option's text. */
function resolveOption(text: string, options: string[]): string {
  const match = /^\s*(?:\[simulated\]\s*)?\(?([a-z])\)?\s*$/i.exec(text);
  if (match) {
    const index = match[1]!.toLowerCase().charCodeAt(0) - 97;
    if (options[index] !== undefined) return options[index]!;
  }
  return text;
}
