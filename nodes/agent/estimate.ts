/**
 * What one copy of an agent sends in a run, for the worst-case estimate: its role and prompt
 * rendered with the copy's variables, what flows into it, the transcript its templates read,
 * what its loop adds (the previous round's answers, revisions, ballots), and what its history
 * policy replays of its earlier exchanges.
 */
import type {
  CallEstimateContext,
  EstimatedCall,
  EstimatePoint,
} from '../../app/node-sdk/estimate.ts';
import type { AgentData } from './spec.ts';

export function agentCalls(ctx: CallEstimateContext<AgentData>): EstimatedCall[] {
  const { data, vars, effect } = ctx;
  const system = data.role ? ctx.tokens(ctx.render(data.role, vars)) : 0;
  /** Tokens of each earlier exchange of this copy, for its history policy. */
  const memory: number[] = [];
  const calls: EstimatedCall[] = [];
  const rounds = data.tools.length > 0 ? data.maxToolRounds : 0;
  const call = (phase: string | undefined, user: number) => {
    const prompt = system + remembered(data.history, memory) + user;
    calls.push({ ...(phase ? { phase } : {}), promptTokens: prompt });
    // A turn offered tools may go model → tools → model up to its bound: at most, so in the
    // worst case only. Each round sends the turn so far with a call and a result (taken as an
    // answer's length each) more.
    for (let round = 1; round <= rounds; round++) {
      calls.push({
        phase: `up to ${rounds} tool round${rounds === 1 ? '' : 's'}`,
        promptTokens: prompt + round * 2 * ctx.completion,
        retry: true,
      });
    }
    memory.push(user + ctx.completion);
  };
  if (!effect.replaced) for (const at of ctx.executions) call(undefined, userTokens(ctx, at));
  for (const extra of effect.extraCalls?.() ?? []) call(extra.phase, extra.userTokens);
  return calls;
}

/** The user message of one turn at a point of its loop. */
function userTokens(ctx: CallEstimateContext<AgentData>, at: EstimatePoint): number {
  const { data } = ctx;
  let tokens = ctx.templateTokens(ctx.node, data.prompt, ctx.vars);
  if (ctx.loop && ctx.readsTranscript(`${data.role}${data.prompt}`)) {
    tokens += ctx.transcriptTokens(ctx.loop, ctx.node, at);
  }
  return tokens + (ctx.effect.extraPrompt?.(at) ?? 0);
}

/** What a history policy replays of a copy's earlier exchanges. */
function remembered(policy: AgentData['history'], memory: number[]): number {
  if (policy === 'all') return sum(memory);
  if (typeof policy === 'number') return policy === 0 ? 0 : sum(memory.slice(-policy));
  return 0;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
