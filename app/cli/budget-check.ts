/**
 * Budgets on the command line: `--max-calls`, `--max-tokens` and `--max-cost` set a document's
 * `settings.budget` for one command, and a run whose likely estimate needs more than its budget
 * is refused before any call (exit 2) unless `--allow-budget-stop` says to run anyway. The rule
 * for what a run "needs" is app/costs/limits-check.ts's.
 *
 * Every mode is checked: a simulated or replayed run counts its calls against the budget too,
 * and stops at it, so it would print a table of "budget exceeded" all the same.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import {
  type BudgetLimitName,
  type BudgetShortfall,
  budgetShortfalls,
  describeShortfall,
  enoughFor,
} from '../costs/limits-check.ts';
import { DEFAULT_PRICES, type PriceTable } from '../costs/prices.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { FLAG_OF } from './budget-warnings.ts';
import { UsageError } from './errors.ts';
import { fillExamples } from './inputs.ts';
import { openStore } from './run-store.ts';

/** The flags `budgetOptions` adds. */
export interface BudgetFlags {
  maxCalls?: string;
  maxTokens?: string;
  maxCost?: string;
  allowBudgetStop?: boolean;
}

/** The budget the flags set, checked: whole numbers ≥ 1 for calls and tokens, dollars > 0. */
export function budgetFromFlags(flags: BudgetFlags): Partial<Record<BudgetLimitName, number>> {
  const out: Partial<Record<BudgetLimitName, number>> = {};
  const whole = (text: string | undefined, flag: string) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1`);
    return n;
  };
  const calls = whole(flags.maxCalls, '--max-calls');
  const tokens = whole(flags.maxTokens, '--max-tokens');
  if (calls !== undefined) out.maxCalls = calls;
  if (tokens !== undefined) out.maxTokens = tokens;
  if (flags.maxCost !== undefined) {
    const usd = Number(flags.maxCost);
    if (!Number.isFinite(usd) || usd <= 0)
      throw new UsageError('--max-cost must be an amount of US dollars above 0');
    out.maxCostUsd = usd;
  }
  return out;
}

/**
 * Sets the flags' budget in a parsed document (before it compiles), over what it says; a no-op
 * without such flags. The document run and recorded is then the one with the raised budget.
 */
export function applyBudgetFlags(doc: Record<string, unknown>, flags: BudgetFlags): void {
  const budget = budgetFromFlags(flags);
  if (Object.keys(budget).length === 0) return;
  const settings = (doc.settings ?? {}) as Record<string, unknown>;
  settings.budget = { ...((settings.budget ?? {}) as Record<string, unknown>), ...budget };
  doc.settings = settings;
}

/** One document to check: its plan, the inputs a run gets, and whose it is (an eval's variant). */
export interface BudgetCheckTarget {
  plan: GraphPlan;
  inputs?: Record<string, unknown>;
  /** `variant democracy`: said before the figure when an eval has several documents. */
  label?: string;
}

/**
 * Refuses (a usage error, exit 2) when a likely run of any target needs more than its budget,
 * naming the limit, its value, the figure and the way on; with `--allow-budget-stop`, or when a
 * loop may stop early, writes the same as a warning to `warn` and lets the run start.
 */
export function checkBudgets(
  targets: readonly BudgetCheckTarget[],
  prices: PriceTable,
  flags: BudgetFlags,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const found = targets.flatMap((t) =>
    budgetShortfalls(t.plan, prices, t.inputs ?? {}).map((s) => ({ ...s, label: t.label })),
  );
  if (found.length === 0) return;
  // One line per limit: the target needing most, so the figure given covers every target.
  const worst = new Map<BudgetLimitName, BudgetShortfall & { label?: string | undefined }>();
  for (const s of found) {
    const seen = worst.get(s.limit);
    if (!seen || s.needed > seen.needed) worst.set(s.limit, s);
  }
  const lines = [...worst.values()].map((s) => ({
    refuse: !s.mayStopEarly && flags.allowBudgetStop !== true,
    text: `${s.label ? `${s.label}: ` : ''}${describeShortfall(s)}`,
    raise: `${FLAG_OF[s.limit]} ${enoughFor(s)}`,
  }));
  const refused = lines.filter((l) => l.refuse);
  for (const l of lines.filter((l) => !l.refuse))
    warn(
      `society: warning: ${l.text}; the run may stop with "budget exceeded" (${l.raise} raises it)`,
    );
  if (refused.length === 0) return;
  throw new UsageError(
    `${refused.map((l) => l.text).join('; ')}; raise it with ${refused.map((l) => l.raise).join(' ')}, or pass --allow-budget-stop to run anyway (the run stops at the budget)`,
  );
}

/**
 * The check for an eval's documents (one per variant), before its first run: each variant's
 * likely run with the document's example inputs (a row's own inputs change tokens, not calls).
 * The store's price table is read only when a document sets a money budget.
 */
export function checkVariantBudgets(
  variants: ReadonlyArray<{ spec: { name: string }; compiled: { plan: GraphPlan } }>,
  flags: BudgetFlags & { db?: string },
): void {
  const plans = variants.map((v) => v.compiled.plan);
  const money = plans.some((p) => p.doc.settings?.budget?.maxCostUsd !== undefined);
  let prices: PriceTable = DEFAULT_PRICES;
  if (money) {
    const store = openStore(flags.db);
    try {
      prices = { ...DEFAULT_PRICES, ...store.priceTable() };
    } finally {
      store.close();
    }
  }
  const targets = variants.map((v) => {
    const given = { inputs: {}, humanAnswers: {} };
    fillExamples(given, v.compiled.plan, new BlobStore());
    return {
      plan: v.compiled.plan,
      inputs: given.inputs,
      ...(variants.length > 1 ? { label: `variant ${v.spec.name}` } : {}),
    };
  });
  checkBudgets(targets, prices, flags);
}
