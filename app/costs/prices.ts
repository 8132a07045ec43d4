/**
 * Model prices, in US dollars per million tokens, and the cost of one call. A model without a
 * price (a local or simulated model, or one missing from the table) has no cost rather than a
 * cost of $0: callers show it as "no price".
 */

/** The price of one model: USD per million prompt (input) and completion (output) tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** Prices by model id (the `model` of a profile, e.g. `gpt-4o-mini`). */
export type PriceTable = Record<string, ModelPrice>;

/**
 * Standard-tier prices from OpenAI's published API pricing (https://openai.com/api/pricing/).
 * These are defaults to be edited: prices change, and batch, cached-input and regional rates
 * differ. Pass your own table to `estimateRun` for other providers or newer figures.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
};

/** Characters that may follow a table key in a longer model id (`gpt-4o-mini-2024-07-18`). */
const SEPARATORS = new Set(['-', ':', '@', '/', '.']);

/**
 * The price of a model: the exact id, else the longest table key the id starts with where the
 * id continues with a separator (`gpt-4o-mini-2024-07-18` finds `gpt-4o-mini`, while `gpt-4o`
 * does not claim `gpt-4omni`), else undefined.
 */
export function priceFor(table: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (
      model.length > key.length &&
      model.startsWith(key) &&
      SEPARATORS.has(model.charAt(key.length)) &&
      (best === undefined || key.length > best.length)
    ) {
      best = key;
    }
  }
  return best === undefined ? undefined : table[best];
}

/** The cost in USD of calls using these tokens, or undefined when the model has no price. */
export function callCost(
  table: PriceTable,
  model: string,
  promptTokens: number,
  completionTokens: number,
): number | undefined {
  const price = priceFor(table, model);
  if (!price) return undefined;
  return (promptTokens * price.inputPerMillion + completionTokens * price.outputPerMillion) / 1e6;
}

/** Completion tokens for a call when neither the node nor its model profile sets `maxTokens`. */
export const DEFAULT_MAX_TOKENS = 1024;
