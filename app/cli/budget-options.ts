/**
 * The options that raise a document's budget for one command, and the one that runs despite an
 * estimate above it: shared by `society run`, `society eval` and the papers' table commands.
 * Only commander here; the check itself (budget-check.ts) loads when a command runs.
 */
import type { Command } from 'commander';

/** Adds `--max-calls`, `--max-tokens`, `--max-cost` and `--allow-budget-stop` to `command`. */
export function budgetOptions(command: Command): Command {
  return command
    .option('--max-calls <N>', "this run's settings.budget.maxCalls (model and expert calls)")
    .option('--max-tokens <N>', "this run's settings.budget.maxTokens")
    .option('--max-cost <USD>', "this run's settings.budget.maxCostUsd, in US dollars")
    .option(
      '--allow-budget-stop',
      "run even when the estimate needs more than the budget allows (the run stops at the budget: 'budget exceeded')",
    );
}
