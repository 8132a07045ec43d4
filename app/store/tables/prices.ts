/** The `prices` table: what a model costs, set by the user, for the run's cost figures. */

import type Database from 'better-sqlite3';
import type { ModelPrice, PriceTable } from '../../costs/prices.ts';
import { statementCache } from './sql.ts';

/** A stored model price (US dollars per million tokens) and when it was set. */
export interface StoredPrice extends ModelPrice {
  model: string;
  updatedAt: number;
}

export class PricesTable {
  readonly #db: Database.Database;
  /** Every run reads the price table as it starts: its statement is prepared once. */
  readonly #prepare: ReturnType<typeof statementCache>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#prepare = statementCache(db);
  }

  /** Sets a model's price in US dollars per million input and output tokens. */
  setPrice(model: string, price: ModelPrice): void {
    for (const [name, value] of Object.entries(price)) {
      if (!Number.isFinite(value) || value < 0) {
        throw new Error(`price ${name} of ${model} must be a non-negative number, got ${value}`);
      }
    }
    this.#db
      .prepare(
        `INSERT INTO prices (model, input_per_million, output_per_million, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (model) DO UPDATE SET input_per_million = excluded.input_per_million,
           output_per_million = excluded.output_per_million, updated_at = excluded.updated_at`,
      )
      .run(model, price.inputPerMillion, price.outputPerMillion, Date.now());
  }

  getPrice(model: string): StoredPrice | undefined {
    return this.listPrices(model)[0];
  }

  /** Every price, by model (or just `model`'s). */
  listPrices(model?: string): StoredPrice[] {
    return this.#prepare<
      [string | null, string | null],
      {
        model: string;
        input_per_million: number;
        output_per_million: number;
        updated_at: number;
      }
    >('SELECT * FROM prices WHERE ? IS NULL OR model = ? ORDER BY model')
      .all(model ?? null, model ?? null)
      .map((row) => ({
        model: row.model,
        inputPerMillion: row.input_per_million,
        outputPerMillion: row.output_per_million,
        updatedAt: row.updated_at,
      }));
  }

  /** The stored prices as a table for `priceFor` and `callCost` (app/costs/prices.ts). */
  priceTable(): PriceTable {
    const table: PriceTable = {};
    for (const price of this.listPrices()) {
      table[price.model] = {
        inputPerMillion: price.inputPerMillion,
        outputPerMillion: price.outputPerMillion,
      };
    }
    return table;
  }

  deletePrice(model: string): boolean {
    return this.#db.prepare('DELETE FROM prices WHERE model = ?').run(model).changes > 0;
  }
}
