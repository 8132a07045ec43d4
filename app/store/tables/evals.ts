/**
 * The `evals` and `eval_items` tables: an eval's configuration and status, and for each item ×
 * variant × repeat the run that answered it, its score and what it cost. The runs themselves are
 * ordinary rows of `runs`; an item keeps its score when its run is deleted.
 */

import type Database from 'better-sqlite3';
import type { Rubric } from '../../eval/rubrics.ts';
import type {
  EvalConfig,
  EvalItemRecord,
  EvalItemStatus,
  EvalRecord,
  EvalStatus,
} from '../../eval/types.ts';
import { type Clean, parseJson, statementCache, withDefined } from './sql.ts';

interface EvalRow {
  id: string;
  name: string;
  config: string;
  status: string;
  items: number;
  simulated: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

interface ItemRow {
  eval_id: string;
  item: number;
  variant: string;
  repeat: number;
  job_key: string;
  run_id: string | null;
  status: string;
  score: number | null;
  prediction: string | null;
  reference: string | null;
  label: string | null;
  error: string | null;
  cost_usd: number;
  tokens: number;
  calls: number;
  latency_ms: number | null;
  updated_at: number;
}

/** What creating (or reopening) an eval takes. */
export interface NewEval {
  id: string;
  name: string;
  config: EvalConfig;
  items: number;
  simulated: boolean;
}

/** What an item × variant records; `updatedAt` is set by the store. */
export type EvalItemUpdate = Omit<EvalItemRecord, 'updatedAt'>;

function toEval(row: EvalRow): EvalRecord {
  return withDefined<EvalRecord>(
    {
      id: row.id,
      name: row.name,
      config: JSON.parse(row.config) as EvalConfig,
      status: row.status as EvalStatus,
      items: row.items,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      simulated: row.simulated === 1,
    },
    { finishedAt: row.finished_at ?? undefined },
  );
}

function toItem(row: ItemRow): EvalItemRecord {
  return withDefined<EvalItemRecord>(
    {
      evalId: row.eval_id,
      item: row.item,
      variant: row.variant,
      jobKey: row.job_key,
      status: row.status as EvalItemStatus,
      costUsd: row.cost_usd,
      tokens: row.tokens,
      calls: row.calls,
      updatedAt: row.updated_at,
    },
    {
      // Absent reads as 0, so an eval without repeats has the records it always had.
      repeat: row.repeat > 0 ? row.repeat : undefined,
      runId: row.run_id ?? undefined,
      score: row.score ?? undefined,
      prediction: parseJson(row.prediction),
      reference: parseJson(row.reference),
      label: row.label ?? undefined,
      error: row.error ?? undefined,
      latencyMs: row.latency_ms ?? undefined,
    },
  );
}

export class EvalsTable {
  readonly #prepare: ReturnType<typeof statementCache>;
  readonly #clean: Clean;

  constructor(db: Database.Database, clean: Clean) {
    this.#prepare = statementCache(db);
    this.#clean = clean;
  }

  /**
   * Creates the eval, or reopens it when one with this id exists (a rerun resumes): its status
   * goes back to running, and what it recorded stays, its config too, except that a rubric given
   * now is attached (or replaces its own: the rubric is not part of what the eval is).
   */
  openEval(input: NewEval, now = Date.now()): EvalRecord {
    this.#prepare(
      `INSERT INTO evals (id, name, config, status, items, simulated, created_at, updated_at)
         VALUES (?, ?, ?, 'running', ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET status = 'running', items = excluded.items,
           config = CASE WHEN excluded.config -> '$.rubric' IS NULL THEN config
             ELSE json_set(config, '$.rubric', json(excluded.config -> '$.rubric')) END,
           simulated = excluded.simulated, updated_at = excluded.updated_at, finished_at = NULL`,
    ).run(
      input.id,
      input.name,
      this.#clean(JSON.stringify(input.config)),
      input.items,
      input.simulated ? 1 : 0,
      now,
      now,
    );
    return this.getEval(input.id)!;
  }

  /** The eval with this id or unique id prefix. */
  getEval(idOrPrefix: string): EvalRecord | undefined {
    const exact = this.#prepare<[string], EvalRow>('SELECT * FROM evals WHERE id = ?').get(
      idOrPrefix,
    );
    if (exact) return toEval(exact);
    const rows = this.#prepare<[string, string], EvalRow>(
      'SELECT * FROM evals WHERE id >= ? AND id < ? ORDER BY id LIMIT 2',
    ).all(idOrPrefix, `${idOrPrefix}\u{10FFFF}`);
    if (rows.length > 1)
      throw new AmbiguousEvalIdError(
        idOrPrefix,
        rows.map((r) => r.id),
      );
    return rows[0] ? toEval(rows[0]) : undefined;
  }

  /** Evals, newest first. */
  listEvals(limit = 100): EvalRecord[] {
    return this.#prepare<[number], EvalRow>(
      'SELECT * FROM evals ORDER BY created_at DESC, id LIMIT ?',
    )
      .all(limit)
      .map(toEval);
  }

  setEvalStatus(id: string, status: EvalStatus, now = Date.now()): void {
    this.#prepare(
      'UPDATE evals SET status = ?, updated_at = ?, finished_at = CASE WHEN ? THEN ? ELSE NULL END WHERE id = ?',
    ).run(status, now, status === 'running' ? 0 : 1, now, id);
  }

  /**
   * Attaches `rubric` to the eval's stored config. The rubric is not part of the eval's identity,
   * so this is how a rerun with `--rubric` adds one to an eval that exists.
   */
  setEvalRubric(id: string, rubric: Rubric, now = Date.now()): void {
    this.#prepare(
      `UPDATE evals SET config = json_set(config, '$.rubric', json(?)), updated_at = ? WHERE id = ?`,
    ).run(this.#clean(JSON.stringify(rubric)), now, id);
  }

  /** Records an item × variant × repeat (a start, a score or a failure), replacing what it had. */
  putEvalItem(item: EvalItemUpdate, now = Date.now()): void {
    const json = (value: unknown) =>
      value === undefined ? null : this.#clean(JSON.stringify(value));
    this.#prepare(
      `INSERT INTO eval_items (eval_id, item, variant, repeat, job_key, run_id, status, score,
           prediction, reference, label, error, cost_usd, tokens, calls, latency_ms, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (eval_id, item, variant, repeat) DO UPDATE SET job_key = excluded.job_key,
           run_id = excluded.run_id, status = excluded.status, score = excluded.score,
           prediction = excluded.prediction, reference = excluded.reference, label = excluded.label,
           error = excluded.error, cost_usd = excluded.cost_usd, tokens = excluded.tokens,
           calls = excluded.calls, latency_ms = excluded.latency_ms, updated_at = excluded.updated_at`,
    ).run(
      item.evalId,
      item.item,
      item.variant,
      item.repeat ?? 0,
      item.jobKey,
      item.runId ?? null,
      item.status,
      item.score ?? null,
      json(item.prediction),
      json(item.reference),
      item.label === undefined ? null : this.#clean(item.label),
      item.error === undefined ? null : this.#clean(item.error),
      item.costUsd,
      item.tokens,
      item.calls,
      item.latencyMs === undefined ? null : Math.round(item.latencyMs),
      now,
    );
  }

  /** An eval's items, by item, then repeat, then variant. */
  evalItems(evalId: string): EvalItemRecord[] {
    return this.#prepare<[string], ItemRow>(
      'SELECT * FROM eval_items WHERE eval_id = ? ORDER BY item, repeat, variant',
    )
      .all(evalId)
      .map(toItem);
  }

  /** The eval item a run answered, if it answered one. */
  evalItemOfRun(runId: string): EvalItemRecord | undefined {
    const row = this.#prepare<[string], ItemRow>(
      'SELECT * FROM eval_items WHERE run_id = ? LIMIT 1',
    ).get(runId);
    return row ? toItem(row) : undefined;
  }

  /** Forgets one item × variant × repeat's record, so the eval runs it again. */
  deleteEvalItem(evalId: string, item: number, variant: string, repeat = 0): boolean {
    return (
      this.#prepare(
        'DELETE FROM eval_items WHERE eval_id = ? AND item = ? AND variant = ? AND repeat = ?',
      ).run(evalId, item, variant, repeat).changes > 0
    );
  }

  /** Deletes an eval and its item records (its runs stay, as ordinary runs). */
  deleteEval(id: string): boolean {
    return this.#prepare('DELETE FROM evals WHERE id = ?').run(id).changes > 0;
  }
}

/** A prefix that names several evals. */
export class AmbiguousEvalIdError extends Error {
  readonly matches: string[];
  constructor(prefix: string, matches: string[]) {
    super(`"${prefix}" matches several evals (${matches.join(', ')}); give more of the id`);
    this.name = 'AmbiguousEvalIdError';
    this.matches = matches;
  }
}
