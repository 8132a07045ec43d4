/**
 * What a mindstorm adds to the worst-case estimate: its members' previous-round answers (right
 * to know), their revisions (right to change) and ballots (right to execute), and the sizes of
 * its own outputs.
 */
import type { EstimateContext, EstimatePlan, LoopEffect } from '../../app/node-sdk/estimate.ts';
import { effectiveRights, type MindstormData } from './rights.ts';
import { memberName, topologyProblem, visibility } from './topology.ts';

/** Each option's `(a) ` in a revision request (right to change). */
const OPTION_TOKENS = 2;
/** Each answer's `Answer 1: ` around the previous round's answers (right to know). */
const PEER_ANSWER_TOKENS = 3;

/** The words of a right's template alone: rendered with no question, answers or prompt. */
function wordingTokens(
  data: MindstormData,
  plan: EstimatePlan,
  right: keyof MindstormData['prompts'],
): number {
  const empty = { question: '', answers: [], options: [], prompt: '', round: 0 };
  return plan.tokens(plan.render(data.prompts[right], empty));
}

/** Every member's answers in one round, each with `extra` tokens around it. */
function answersTokens(data: MindstormData, plan: EstimatePlan, loop: string, extra: number) {
  let tokens = 0;
  for (const m of data.members) {
    tokens += plan.copiesWithin(m, loop) * (plan.maxCompletion(m) + extra);
  }
  return tokens;
}

/**
 * The previous round's answers the topology shows one copy of `node` (right to know): every
 * member's under `full`; otherwise the mean over the node's copies of what each is shown.
 */
function shownAnswersTokens(
  data: MindstormData,
  node: string,
  plan: EstimatePlan,
  loop: string,
): number {
  if (data.topology === 'full') return answersTokens(data, plan, loop, PEER_ANSWER_TOKENS);
  const size = new Map<string, number>();
  const names: string[] = [];
  for (const m of data.members) {
    const copies = plan.copiesWithin(m, loop);
    const replicated = plan.nodeData(m).replicate !== undefined;
    for (let i = 0; i < (replicated ? copies : 1); i++) {
      const name = memberName(m, replicated ? i : undefined);
      names.push(name);
      size.set(name, plan.maxCompletion(m) + PEER_ANSWER_TOKENS);
    }
  }
  if (topologyProblem(data, names)) return answersTokens(data, plan, loop, PEER_ANSWER_TOKENS);
  const sees = visibility(data, names);
  const own = names.filter((n) => n === node || n.startsWith(`${node}#`));
  let total = 0;
  for (const name of own) for (const seen of sees.get(name) ?? []) total += size.get(seen) ?? 0;
  return own.length === 0 ? 0 : Math.ceil(total / own.length);
}

export function mindstormEffect(
  data: MindstormData,
  node: string,
  plan: EstimatePlan & { loop: string },
): LoopEffect {
  const rights = effectiveRights(data);
  const { loop } = plan;
  if (rights.rte && data.leader === node) {
    return {
      replaced: true,
      answerTokens: Math.max(0, ...data.members.map((m) => plan.maxCompletion(m))),
    };
  }
  if (!data.members.includes(node)) return {};
  // Sizes are read when the estimate asks, not now: they may depend on other nodes' effects.
  const effect: LoopEffect = {};
  if (rights.rtk) {
    effect.extraPrompt = (at) =>
      at.stage === 'round' && at.round > 1
        ? wordingTokens(data, plan, 'know') +
          shownAnswersTokens(data, node, plan, loop) +
          plan.inputTokens(node, true)
        : 0;
  }
  if (rights.rtc || (rights.rte && data.leader)) {
    effect.extraCalls = () => {
      const extra: Array<{ phase: string; userTokens: number }> = [];
      if (rights.rtc) {
        const userTokens =
          wordingTokens(data, plan, 'change') +
          plan.inputTokens(node, true) +
          answersTokens(data, plan, loop, OPTION_TOKENS);
        for (let r = 1; r <= data.maxRounds; r++) extra.push({ phase: 'revise', userTokens });
      }
      if (rights.rte && data.leader)
        extra.push({ phase: 'ballot', userTokens: ballotTokens(data, plan, loop) });
      return extra;
    };
  }
  return effect;
}

/** Right to execute: a member answers the leader's prompt. */
function ballotTokens(data: MindstormData, plan: EstimatePlan, loop: string): number {
  const leader = data.leader!;
  const prompt = String(plan.nodeData(leader).prompt ?? '');
  let tokens =
    wordingTokens(data, plan, 'execute') +
    plan.tokens(plan.render(prompt, plan.copies(leader)[0] ?? {})) +
    plan.inputTokens(leader);
  if (plan.readsTranscript(prompt)) {
    tokens += plan.transcriptTokens(loop, leader, { stage: 'decide', round: data.maxRounds });
  }
  return tokens;
}

export function mindstormOutputTokens(ctx: EstimateContext<MindstormData>, port: string): number {
  const data = ctx.data;
  if (port === 'transcript') {
    return ctx.transcriptTokens(ctx.node, undefined, { stage: 'decide', round: data.maxRounds });
  }
  if (port === 'verdict') return data.leader ? ctx.answerTokens(data.leader) : 0;
  if (port === 'tally' && effectiveRights(data).rte && data.leader) {
    return answersTokens(data, ctx, ctx.node, 0);
  }
  return 1;
}
