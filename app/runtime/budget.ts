/**
 * Run budgets, checked before each model call. Calls in flight hold a reservation so that a
 * burst of concurrent calls cannot overshoot the limit.
 */
import type { Usage } from './events.ts';

export class BudgetExceededError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetExceededError';
  }
}

export interface BudgetLimits {
  /** Model and expert calls together. */
  maxCalls?: number;
  maxTokens?: number;
  /** US dollars, at the run's price table; calls to models without a price count as free. */
  maxCostUsd?: number;
}

export class Budget {
  readonly usage: Usage = {
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    costUsd: 0,
  };
  readonly #limits: BudgetLimits;
  #reservedCalls = 0;
  #reservedExpertCalls = 0;
  #reservedTokens = 0;
  #reservedCost = 0;

  constructor(limits: BudgetLimits = {}) {
    this.#limits = limits;
  }

  /**
   * Reserves one call of up to `tokens` tokens costing up to `costUsd`, or throws if the budget
   * cannot cover it.
   */
  reserve(
    tokens: number,
    costUsd = 0,
  ): { settle(prompt: number, completion: number, costUsd?: number): void; release(): void } {
    const { maxTokens, maxCostUsd } = this.#limits;
    this.#checkCalls();
    if (maxTokens !== undefined && this.usage.totalTokens + this.#reservedTokens >= maxTokens) {
      throw new BudgetExceededError(
        `budget exceeded: the run may use at most ${maxTokens} tokens (${this.usage.totalTokens} used)`,
      );
    }
    if (
      maxCostUsd !== undefined &&
      this.usage.costUsd + this.#reservedCost + costUsd > maxCostUsd
    ) {
      throw new BudgetExceededError(
        `budget exceeded: the next call could cost $${costUsd.toFixed(4)} and the run may spend at most $${maxCostUsd} ($${this.usage.costUsd.toFixed(4)} spent)`,
      );
    }
    this.#reservedCalls++;
    this.#reservedTokens += tokens;
    this.#reservedCost += costUsd;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.#reservedCalls--;
      this.#reservedTokens -= tokens;
      this.#reservedCost -= costUsd;
      return true;
    };
    return {
      settle: (prompt, completion, spent = 0) => {
        if (!close()) return;
        this.usage.costUsd += spent;
        this.usage.calls++;
        this.usage.promptTokens += prompt;
        this.usage.completionTokens += completion;
        this.usage.totalTokens += prompt + completion;
      },
      release: () => {
        close();
      },
    };
  }

  /**
   * Reserves one expert call, or throws if `maxCalls` is spent. Expert calls have no tokens and
   * no price in the run's table, so only the call limit applies to them.
   */
  reserveExpert(): { settle(): void; release(): void } {
    this.#checkCalls();
    this.#reservedExpertCalls++;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.#reservedExpertCalls--;
      return true;
    };
    return {
      settle: () => {
        if (close()) this.usage.expertCalls = (this.usage.expertCalls ?? 0) + 1;
      },
      release: () => {
        close();
      },
    };
  }

  #checkCalls(): void {
    const { maxCalls } = this.#limits;
    const calls =
      this.usage.calls +
      (this.usage.expertCalls ?? 0) +
      this.#reservedCalls +
      this.#reservedExpertCalls;
    if (maxCalls !== undefined && calls >= maxCalls) {
      throw new BudgetExceededError(
        `budget exceeded: the run may make at most ${maxCalls} model calls${this.usage.expertCalls || this.#reservedExpertCalls ? ' (expert calls included)' : ''}`,
      );
    }
  }
}
