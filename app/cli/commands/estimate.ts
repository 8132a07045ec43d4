/**
 * `society run FILE --estimate`: what a run would call and spend, before any call. As text, the
 * estimate's table; with `--json`, one object a script can read beside a run's `usage`:
 *
 *   { nodes: [{ id, type, calls, promptTokens, completionTokens, costUsd, … }], total: { … } }
 *
 * `calls`, `promptTokens`, `completionTokens` and `costUsd` count a likely run: every round
 * runs, answers fill `assumptions.answerShare` of their max tokens (in what they cost and in the
 * later prompts they flow into), and none is refused. `worstCase` has every answer as long as
 * it may be, and the repairs and retries refused answers bring. `calls` are model calls, as a run's
 * `usage.calls` counts them; calls to expert models are `expertCalls`. `costUsd` is null when a
 * model has no price. `imagePromptTokens` is the part of `promptTokens` that images make up
 * (each counted as `assumptions.imageTokens`), which a simulated run does not count.
 * `providers` lists the provider profiles a live run would reach, each with its key variable and
 * whether it is set (never its value); as text, the same as a table after the totals.
 */
import type { GraphPlan } from '../../compiler/analyze.ts';
import {
  type EstimateOptions,
  type EstimateTotals,
  estimateRun,
  formatEstimate,
  LIKELY_ANSWER_SHARE,
  type NodeEstimate,
  type RunEstimate,
  totals,
} from '../../costs/estimate.ts';
import type { PriceTable } from '../../costs/prices.ts';
import { IMAGE_TOKENS } from '../../providers/tokens.ts';
import { type PreflightOptions, preflight } from '../../runtime/preflight.ts';
import { formatParamValues } from '../params.ts';
import { providersJson, providersText } from '../preflight.ts';

/** Calls, tokens and cost in the JSON output. */
export interface EstimateFigures {
  /** Model calls (expert calls are counted apart, as a run's usage counts them). */
  calls: number;
  expertCalls: number;
  promptTokens: number;
  /** Of `promptTokens`, what images make up. */
  imagePromptTokens: number;
  completionTokens: number;
  /** Null when a model called has no price. */
  costUsd: number | null;
}

/** One node in the JSON output: first-attempt figures, and the worst case beside them. */
export interface NodeEstimateJson extends EstimateFigures {
  id: string;
  type: string;
  /** The models it calls (expert models included). */
  models: string[];
  worstCase: EstimateFigures;
}

/** The JSON output of `society run FILE --estimate --json`. */
export interface EstimateJson {
  nodes: NodeEstimateJson[];
  total: EstimateFigures & { worstCase: EstimateFigures };
  /** Models without a price. */
  unpriced: string[];
  assumptions: {
    /** Prompt tokens one image counts. */
    imageTokens: number;
    /** The share of their max tokens answers fill: likely, and in the worst case. */
    answerShare: number;
    worstCaseAnswerShare: 1;
    /** Stop conditions are not foreseen: every loop runs its max rounds. */
    everyRoundRuns: true;
  };
}

/** Prints the estimate as text or JSON; the inputs given on the command line are counted. */
export function printEstimate(
  plan: GraphPlan,
  prices: PriceTable,
  inputs: Record<string, unknown>,
  json: boolean,
  keys: PreflightOptions = {},
): void {
  const params = Object.keys(plan.params).length ? plan.params : undefined;
  // The providers and keys a live run would need, each set or not (never a key's value).
  const check = preflight(plan, { ...keys, simulate: false });
  if (json) {
    const report = {
      ...estimateReport(plan, prices, inputs),
      ...(params ? { params } : {}),
      providers: providersJson(check),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  if (params) process.stdout.write(`${formatParamValues(params)}\n`);
  const worst = estimateRun(plan, prices, { inputs, imageTokens: IMAGE_TOKENS });
  const likely = estimateRun(plan, prices, {
    inputs,
    imageTokens: IMAGE_TOKENS,
    answerShare: LIKELY_ANSWER_SHARE,
    weighBranches: true,
  });
  process.stdout.write(`${formatEstimate(worst, likely)}\n`);
  // Said only where tools are offered: the table has their rows.
  const tools = worst.byNode.some((r) => r.phase?.includes('tool'))
    ? [
        'a turn offered tools makes one tool round calling one of its tools, each as likely',
        'every tool round, and graph tools called up to maxToolCalls (once a round each where nothing bounds them)',
      ]
    : ['', ''];
  process.stdout.write(
    `(likely: answers fill ${LIKELY_ANSWER_SHARE * 100}% of their max tokens, none is refused, a branch counts by its odds${tools[0] ? `, ${tools[0]}` : ''}; worst case: every answer at its max tokens, every repair and retry, every branch${tools[1] ? `, ${tools[1]}` : ''}; both: every round runs, an image counts ${IMAGE_TOKENS} tokens)\n`,
  );
  process.stdout.write(`${providersText(check)}\n`);
}

/** The estimate as `--estimate --json` prints it. */
export function estimateReport(
  plan: GraphPlan,
  prices: PriceTable,
  inputs: Record<string, unknown>,
): EstimateJson {
  const pair = (options: EstimateOptions): EstimatePair => ({
    estimate: estimateRun(plan, prices, { inputs, imageTokens: IMAGE_TOKENS, ...options }),
    textOnly: estimateRun(plan, prices, { inputs, imageTokens: 0, ...options }),
  });
  return estimateJson(pair({ answerShare: LIKELY_ANSWER_SHARE, weighBranches: true }), pair({}));
}

/** An estimate, and the same with images counting nothing (which tells what images make up). */
export interface EstimatePair {
  estimate: RunEstimate;
  textOnly: RunEstimate;
}

/**
 * The JSON form: each node's likely figures (`likely`'s first attempts) with its worst case
 * (`worst`, every row) beside them.
 */
export function estimateJson(likely: EstimatePair, worst: EstimatePair): EstimateJson {
  const rows = worst.estimate.byNode;
  const ids = [...new Set(rows.map((r) => r.node))];
  const of = (pair: EstimatePair, id?: string, all = false) => {
    const pick = (e: RunEstimate) =>
      e.byNode.filter((r) => (id === undefined || r.node === id) && (all || !r.retry));
    return figures(pick(pair.estimate), pick(pair.textOnly));
  };
  return {
    nodes: ids.map((id) => ({
      id,
      type: rows.find((r) => r.node === id)!.type,
      ...of(likely, id),
      models: [...new Set(rows.filter((r) => r.node === id).map((r) => r.model))],
      worstCase: of(worst, id, true),
    })),
    total: { ...of(likely), worstCase: of(worst, undefined, true) },
    unpriced: [...new Set(rows.filter(unpriced).map((r) => r.model))],
    assumptions: {
      imageTokens: IMAGE_TOKENS,
      answerShare: LIKELY_ANSWER_SHARE,
      worstCaseAnswerShare: 1,
      everyRoundRuns: true,
    },
  };
}

function figures(
  rows: readonly NodeEstimate[],
  textRows: readonly NodeEstimate[],
): EstimateFigures {
  const all: EstimateTotals = totals(rows);
  const text = totals(textRows);
  // Shares of a call (a branch's odds, one of a turn's tools) leave float dust: to a millionth.
  const share = (n: number) => Math.round(n * 1e6) / 1e6;
  return {
    calls: share(all.calls - all.expertCalls),
    expertCalls: share(all.expertCalls),
    promptTokens: all.promptTokens,
    imagePromptTokens: all.promptTokens - text.promptTokens,
    completionTokens: all.completionTokens,
    // Dollars to a billionth: sums of prices per million leave float dust in the last digits.
    costUsd: rows.some(unpriced) ? null : Math.round(all.costUsd * 1e9) / 1e9,
  };
}

/** A row of model calls whose model has no price (expert calls are not priced by tokens). */
function unpriced(row: NodeEstimate): boolean {
  return !row.expert && row.costUsd === undefined;
}
