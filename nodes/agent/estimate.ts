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
  const bound = toolCallBound(data.maxToolCalls, ctx.runMaxToolCalls);
  // A bound of 0 lets no call run: no graph tool costs anything.
  const graphs = bound === 0 ? [] : data.tools.flatMap((t) => (t.graph ? [t.graph] : []));
  const call = (phase: string | undefined, user: number) => {
    const prompt = system + remembered(data.history, memory) + user;
    calls.push({ ...(phase ? { phase } : {}), promptTokens: prompt });
    // A turn offered tools may go model → tools → model up to its bound. Likely it makes one
    // round: one call, to one of its tools (each as likely), and the model reads the result;
    // the other rounds are at most, so in the worst case only. Each round sends the turn so far
    // with a call and a result (taken as an answer's length each) more.
    for (let round = 1; round <= rounds; round++) {
      calls.push({
        phase: round === 1 ? 'tool round' : `up to ${rounds} tool rounds`,
        promptTokens: prompt + round * 2 * ctx.completion,
        ...(round === 1 ? {} : { retry: true }),
      });
    }
    for (const name of graphs) {
      calls.push(...viaTool(ctx, name, 1 / data.tools.length, false));
      // Without a bound the engine enforces, the worst case is one call per round to every
      // graph tool: a figure, not a bound (a round's calls are as many as the model asks).
      if (bound === undefined) {
        calls.push(
          ...viaTool(ctx, name, rounds, true, ', no bound on graph-tool calls: set maxToolCalls'),
        );
      }
    }
    memory.push(user + ctx.completion);
  };
  if (!effect.replaced) for (const at of ctx.executions) call(undefined, userTokens(ctx, at));
  for (const extra of effect.extraCalls?.() ?? []) call(extra.phase, extra.userTokens);
  // With a bound (the node's maxToolCalls, the run's), the worst case is that many calls over
  // the node's whole run, all to its costliest graph tool.
  if (bound !== undefined && graphs.length > 0 && calls.length > 0) {
    const costliest = graphs
      .map((name) => ({ name, calls: ctx.graphCalls(name) }))
      .reduce((a, b) => (weight(b.calls) > weight(a.calls) ? b : a));
    for (const c of viaTool(ctx, costliest.name, bound, true, `, up to ${bound} calls`)) {
      calls.push({ ...c, perNode: true });
    }
  }
  return calls;
}

/** How the phase of a call made through a graph tool begins. */
const VIA = 'via tool ';

/** The bound the engine enforces on a node's tool calls in a run: the lower of the two set. */
function toolCallBound(node: number | undefined, run: number | undefined): number | undefined {
  if (node === undefined) return run;
  return run === undefined ? node : Math.min(node, run);
}

/**
 * The calls of `times` calls to a graph tool, under the agent: `via tool NAME` and what bounds
 * them (`qualifier`). A call the graph's own agents make through a graph tool of theirs names
 * the chain, each tool with its bound: `via tool desk, up to 2 calls › advisor`.
 */
function viaTool(
  ctx: CallEstimateContext<AgentData>,
  name: string,
  times: number,
  atMost: boolean,
  qualifier = '',
): EstimatedCall[] {
  return ctx.graphCalls(name).map((c) => ({
    ...c,
    phase: `via tool ${name}${qualifier}${c.phase?.startsWith(VIA) ? ` › ${c.phase.slice(VIA.length)}` : ''}`,
    calls: (c.calls ?? 1) * times,
    ...(atMost || c.retry ? { retry: true } : {}),
  }));
}

/** What one run of a graph tool weighs, to find the costliest: its calls, then its tokens. */
function weight(calls: EstimatedCall[]): number {
  return sum(calls.map((c) => (c.calls ?? 1) * (1e6 + c.promptTokens + (c.completionTokens ?? 0))));
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
