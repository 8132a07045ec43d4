/**
 * A worst-case estimate of a run's model calls, tokens and cost, made from the compiled plan
 * before any call. The call count never under-counts: every replica of every model-calling
 * node runs in every round of every loop it sits in (stop conditions are ignored, so a loop
 * runs its `maxRounds`), plus the calls a loop adds to its members (turns outside their rounds)
 * and those a refused answer brings (a plan's repairs, a step's retries: rows marked
 * `retry`, left out of `firstAttempts`). Expert model calls are counted apart, with no tokens.
 * Token counts are upper-ish estimates at about four characters a token:
 *
 * - completion tokens of a call are its `maxTokens`: the node's, else its model profile's,
 *   else `defaultMaxTokens` (1024), times `answerShare` (1: every answer as long as it may be;
 *   `LIKELY_ANSWER_SHARE` for a likely run); answers that flow into later prompts (inputs,
 *   transcripts, histories) count the same;
 * - prompt tokens are what the node type's `estimate` hook says one call sends (an agent: its
 *   role and prompt rendered with its replica's variables and empty inputs, what flows in, the
 *   transcript it reads, what its history replays); without the hook, what flows in: each
 *   connected source's output size (a list from a replicated source or `collect: all` counts
 *   every element), as the source's `outputTokens` hook or its answer's `maxTokens` gives it;
 * - graph inputs and human answers count as `defaultInputTokens` (0) unless their values are
 *   given in `inputs`, and images as `imageTokens` (0), as the runtime's own estimate does;
 * - a node behind a branch (an output a router may leave untaken) counts "at most" (`atMost`
 *   rows): fully in the worst case, and, with `weighBranches` (a likely estimate), times the
 *   chance its branch is taken: the branch's declared odds, else 1/N (branches.ts);
 * - a call to a library graph offered as a tool costs what one run of that graph costs (its
 *   own estimate, from `plan.toolPlans`): the node's hook says how many calls, and its rows read
 *   `via tool NAME`. A call bounded over the whole run (`perNode`) counts once for the node.
 *
 * This module and plan-sizes.ts are the mechanism: walking the plan, copies and rounds, sizes
 * along edges and through transcripts, prices. What a node type sends and produces is its
 * spec's to say.
 */
import type { GraphPlan, PlannedNode } from '../compiler/analyze.ts';
import type { CallEstimateContext, EstimatedCall } from '../node-sdk/estimate.ts';
import type { RunSettings } from '../schema/document.ts';
import { branchOdds } from './branches.ts';
import { PlanSizes, sum } from './plan-sizes.ts';
import { callCost, DEFAULT_MAX_TOKENS, type PriceTable } from './prices.ts';

export { formatEstimate } from './format.ts';

export { DEFAULT_MAX_TOKENS };

/** Options of `estimateRun`. */
export interface EstimateOptions {
  /** Completion tokens when neither a node nor its profile sets `maxTokens` (default 1024). */
  defaultMaxTokens?: number;
  /** Known values of graph inputs and human answers, by name; their text counts at chars/4. */
  inputs?: Record<string, unknown>;
  /** Tokens for a graph input or human answer whose value is not known (default 0). */
  defaultInputTokens?: number;
  /** Prompt tokens per image sent to a model (default 0: images are not counted). */
  imageTokens?: number;
  /**
   * The share of its max tokens an answer is taken to fill (default 1, the worst case), in
   * what it costs and in the later prompts it flows into.
   */
  answerShare?: number;
  /**
   * Count what lies behind a branch by the chance it is taken (a likely estimate), instead of
   * as if every branch were (the worst case).
   */
  weighBranches?: boolean;
}

/**
 * The share of their max tokens answers fill in a likely run: a limit is a ceiling, and most
 * answers stop well before it (an organizer's one question, a member's brief answer), while
 * long ones are cut at it. Half is our assumption, not a measurement; the worst case is beside
 * it.
 */
export const LIKELY_ANSWER_SHARE = 0.5;

/** The calls of one node on one model; calls a loop adds to its members have their own rows. */
export interface NodeEstimate {
  node: string;
  /** The node's type. */
  type: string;
  /** The model id from the node's profile (a profile name when the profile is missing). */
  model: string;
  /** Set on calls outside the node's own turns: a loop's turn for a member, a `retry`. */
  phase?: string;
  /** Calls made only when an earlier answer was refused: in the worst case only. */
  retry?: true;
  /** Calls to an expert model: they have no tokens and no price. */
  expert?: true;
  /**
   * Behind a branch: made only when the branch is taken. `odds` is the chance it is; a
   * `weighBranches` estimate has already weighed the row's figures by it.
   */
  atMost?: { odds: number };
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Absent when the model has no price. */
  costUsd?: number;
}

/** Calls, tokens and cost of a set of rows. */
export interface EstimateTotals {
  /** Every call, expert calls included (a run's `maxCalls` counts them too). */
  calls: number;
  /** Of `calls`, those to expert models. */
  expertCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** The sum over priced calls; calls to models in `unpriced` add nothing. */
  costUsd: number;
}

/** A worst-case estimate of a run, made before any call. */
export interface RunEstimate extends EstimateTotals {
  /** Model ids without a price (local or simulated models, or missing from the table). */
  unpriced: string[];
  byNode: NodeEstimate[];
  /** The same run with every answer taken the first time: no repairs, no retries. */
  firstAttempts: EstimateTotals;
}

/**
 * Estimates the worst case of a run from its plan: calls, prompt and completion tokens and
 * cost, per node and model and in total. See the module comment for what is counted.
 */
export function estimateRun(
  plan: GraphPlan,
  prices: PriceTable,
  options: EstimateOptions = {},
): RunEstimate {
  const sizes = new PlanSizes(plan, options);
  const odds = branchOdds(plan);
  const rows = new Map<string, NodeEstimate>();
  const record = (
    node: PlannedNode,
    model: string,
    call: EstimatedCall,
    n: number,
    out: number,
  ) => {
    const rowModel = call.expert?.model ?? call.model ?? model;
    const key = [
      node.id,
      rowModel,
      call.phase ?? '',
      call.retry ? 'r' : '',
      call.expert ? 'e' : '',
    ].join('\u0000');
    let row = rows.get(key);
    if (!row) {
      row = {
        node: node.id,
        type: node.type,
        model: rowModel,
        ...(call.phase ? { phase: call.phase } : {}),
        ...(call.retry ? { retry: true as const } : {}),
        ...(call.expert ? { expert: true as const } : {}),
        ...(odds.has(node.id) ? { atMost: { odds: odds.get(node.id)! } } : {}),
        calls: 0,
        promptTokens: 0,
        completionTokens: 0,
      };
      rows.set(key, row);
    }
    const times = n * (call.calls ?? 1);
    row.calls += times;
    if (call.expert) return;
    row.promptTokens += Math.round(call.promptTokens * times);
    row.completionTokens += Math.round((call.completionTokens ?? out) * times);
  };
  const toolCalls = new Map<string, EstimatedCall[]>();
  const graphCalls = (name: string): EstimatedCall[] => {
    const known = toolCalls.get(name);
    if (known) return known;
    const inner = plan.toolPlans?.get(name);
    // A call's inputs are what the model writes: unknown here, as a graph input is.
    const { inputs: _given, ...rest } = options;
    const calls = inner
      ? estimateRun(inner, prices, rest).byNode.map(
          (row): EstimatedCall => ({
            model: row.model,
            calls: row.calls,
            promptTokens: row.calls > 0 ? row.promptTokens / row.calls : 0,
            completionTokens: row.calls > 0 ? row.completionTokens / row.calls : 0,
            // The node's hook may name what the call went through (a graph tool's own tools).
            ...(row.phase ? { phase: row.phase } : {}),
            ...(row.retry ? { retry: true } : {}),
            ...(row.expert ? { expert: { model: row.model } } : {}),
          }),
        )
      : [];
    toolCalls.set(name, calls);
    return calls;
  };
  const runMaxToolCalls = (plan.doc.settings as RunSettings | undefined)?.budget?.maxToolCalls;

  for (const node of plan.nodes.values()) {
    const perRun = node.spec.callsPerRun?.(node.data) ?? 0;
    if (perRun <= 0) continue;
    // A hook lists every call itself; without one, each execution makes `perRun` calls.
    const weight = options.weighBranches ? (odds.get(node.id) ?? 1) : 1;
    const factor = sizes.outerFactor(node.id) * (node.spec.estimate ? 1 : perRun) * weight;
    const executions = sizes.executions(node.id);
    const effect = sizes.effect(node.id);
    let first = true;
    for (const vars of sizes.copies(node.id)) {
      const model = sizes.profile(node, vars)?.model ?? sizes.profileName(node, vars);
      const completion = sizes.completion(node, vars);
      const ctx: CallEstimateContext = {
        ...sizes.context(node),
        vars,
        completion,
        executions,
        effect,
        graphCalls,
        ...(runMaxToolCalls !== undefined ? { runMaxToolCalls } : {}),
      };
      const calls: EstimatedCall[] = node.spec.estimate
        ? node.spec.estimate(ctx)
        : executions.map(() => ({ promptTokens: sizes.inputTokens(node.id) }));
      for (const call of calls) {
        // A bound over the node's whole run: once, from its first copy, whatever its rounds.
        if (call.perNode) {
          if (first) record(node, model, call, weight, completion);
        } else record(node, model, call, factor, completion);
      }
      first = false;
    }
  }

  const byNode = [...rows.values()];
  const unpriced = new Set<string>();
  for (const row of byNode) {
    if (row.expert) continue;
    const cost = callCost(prices, row.model, row.promptTokens, row.completionTokens);
    if (cost === undefined) unpriced.add(row.model);
    else row.costUsd = cost;
  }
  return {
    ...totals(byNode),
    unpriced: [...unpriced],
    byNode,
    firstAttempts: totals(byNode.filter((r) => !r.retry)),
  };
}

/** The totals of some rows of an estimate. */
export function totals(rows: readonly NodeEstimate[]): EstimateTotals {
  return {
    calls: sum(rows.map((r) => r.calls)),
    expertCalls: sum(rows.map((r) => (r.expert ? r.calls : 0))),
    promptTokens: sum(rows.map((r) => r.promptTokens)),
    completionTokens: sum(rows.map((r) => r.completionTokens)),
    costUsd: sum(rows.map((r) => r.costUsd ?? 0)),
  };
}
