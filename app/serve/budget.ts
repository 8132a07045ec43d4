/**
 * A request's own budget: a client may cap what one run spends (US dollars, tokens, model and
 * expert calls). It lowers the document's `settings.budget` for that run, never raises it, and a
 * server with `--budget` caps every run at what it has left; asking for more than that is a 400
 * naming the field. A run stopped by its budget fails with the engine's "budget exceeded: …".
 */
import { z } from 'zod';
import type { CompileResult } from '../compiler/index.ts';
import type { BudgetLimits } from '../runtime/budget.ts';
import { HttpError } from './errors.ts';

type Compiled = Extract<CompileResult, { ok: true }>;

/** `budget` of a run request (and of a chat request, as an extension). */
export const RequestBudget = z
  .strictObject({
    usd: z.number().positive().optional().describe('US dollars, at the server’s price table'),
    tokens: z.number().int().positive().optional().describe('prompt and completion tokens'),
    calls: z.number().int().positive().optional().describe('model and expert calls'),
  })
  .describe("this run's own budget: it lowers the document's settings.budget, never raises it");
export type RequestBudget = z.infer<typeof RequestBudget>;

/** The header a client may send its budget in, in US dollars (a chat's, a run's). */
export const BUDGET_HEADER = 'x-society-budget-usd';

/** A request's budget as the engine's limits, with the field each came in, for errors. */
export interface AskedBudget {
  limits: BudgetLimits;
  /** The request field the dollar limit came in (`budget.usd`, `budget_usd`, the header). */
  usdField?: string;
}

/** The limits `budget` asks for; `usdField` names where a dollar amount came from. */
export function askedBudget(
  budget: RequestBudget | undefined,
  usdField = 'budget.usd',
): AskedBudget | undefined {
  if (!budget) return undefined;
  const limits: BudgetLimits = {
    ...(budget.usd !== undefined ? { maxCostUsd: budget.usd } : {}),
    ...(budget.tokens !== undefined ? { maxTokens: budget.tokens } : {}),
    ...(budget.calls !== undefined ? { maxCalls: budget.calls } : {}),
  };
  return { limits, ...(budget.usd !== undefined ? { usdField } : {}) };
}

/**
 * A request's budget: `budget`, a chat's `budget_usd`, or the `X-Society-Budget-Usd` header
 * (a run request's too, the only one a form can send); where several name dollars, the lowest
 * holds.
 */
export function chatBudget(
  body: { budget?: RequestBudget | undefined; budget_usd?: number | undefined },
  header: string | string[] | undefined,
): AskedBudget | undefined {
  const dollars: Array<[number, string]> = [];
  if (body.budget?.usd !== undefined) dollars.push([body.budget.usd, 'budget.usd']);
  if (body.budget_usd !== undefined) dollars.push([body.budget_usd, 'budget_usd']);
  if (header !== undefined) {
    const text = Array.isArray(header) ? header[0] : header;
    const usd = Number(text);
    if (!text?.trim() || !Number.isFinite(usd) || usd <= 0)
      throw new HttpError(
        400,
        `X-Society-Budget-Usd takes US dollars above 0, got "${text}"`,
        'X-Society-Budget-Usd',
      );
    dollars.push([usd, 'X-Society-Budget-Usd']);
  }
  const lowest = dollars.sort((a, b) => a[0] - b[0])[0];
  if (!body.budget && !lowest) return undefined;
  return askedBudget(
    { ...body.budget, ...(lowest ? { usd: lowest[0] } : {}) },
    lowest?.[1] ?? 'budget.usd',
  );
}

/**
 * The limits a run gets: what the request asks, within what the server has left (`remaining`,
 * US dollars, when it has a budget). Asking for more than is left is a 400 naming the field, or
 * with `cap` (a queued run starting after others spent) is lowered to what is left.
 */
export function runLimits(
  asked: AskedBudget | undefined,
  remaining: number | undefined,
  { cap = false } = {},
): BudgetLimits {
  const limits: BudgetLimits = { ...asked?.limits };
  if (remaining === undefined) return limits;
  if (!cap && limits.maxCostUsd !== undefined && limits.maxCostUsd > remaining)
    throw new HttpError(
      400,
      `${asked?.usdField ?? 'budget.usd'}: asks $${limits.maxCostUsd} but the server has $${dollarsLeft(remaining)} of its budget left`,
      asked?.usdField ?? 'budget.usd',
    );
  limits.maxCostUsd = Math.min(limits.maxCostUsd ?? remaining, remaining);
  return limits;
}

/**
 * Dollars left, to the millionth and rounded down: a few thousandths of a cent still show
 * (not `$0.0000`), and what is shown is never more than what is left.
 */
function dollarsLeft(usd: number): number {
  // The epsilon absorbs binary fractions (0.000029999… for $0.00003).
  return Math.floor(usd * 1e6 + 1e-6) / 1e6;
}

/** `compiled` with its budget lowered to `limits` where they are lower (the same object without any). */
export function withBudget(compiled: Compiled, limits: BudgetLimits): Compiled {
  const entries = Object.entries(limits) as Array<[keyof BudgetLimits, number | undefined]>;
  if (!entries.some(([, v]) => v !== undefined)) return compiled;
  const lower = (settings: Compiled['doc']['settings']) => {
    const budget: Record<string, unknown> = { ...settings?.budget };
    for (const [key, value] of entries) {
      if (value === undefined) continue;
      const own = budget[key];
      budget[key] = typeof own === 'number' ? Math.min(own, value) : value;
    }
    return { ...settings, budget };
  };
  return {
    ...compiled,
    doc: { ...compiled.doc, settings: lower(compiled.doc.settings) },
    source: { ...compiled.source, settings: lower(compiled.source.settings) },
  };
}
