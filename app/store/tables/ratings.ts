/**
 * The `ratings` table: people's scores of runs on a rubric's scales, one per run × agent × rater
 * × scale (agent '' when the whole run is rated). Ratings live with their run (deleting the run deletes them); an eval's ratings are its
 * items' runs' ratings, joined through `eval_items`.
 */
import type Database from 'better-sqlite3';
import type { EvalRating, RatingRecord } from '../../eval/types.ts';
import { type Clean, statementCache, withDefined } from './sql.ts';

interface RatingRow {
  run_id: string;
  agent: string;
  rater: string;
  scale: string;
  score: number;
  note: string | null;
  rated_at: number;
}

/** What rating a run takes: one rater's scores by scale, and a note kept with each. */
export interface NewRatings {
  runId: string;
  /** One agent of the run (its trajectory) is rated; without it, the whole run. */
  agent?: string;
  rater: string;
  scores: Readonly<Record<string, number>>;
  note?: string;
}

function toRating(row: RatingRow): RatingRecord {
  return withDefined<RatingRecord>(
    {
      runId: row.run_id,
      rater: row.rater,
      scale: row.scale,
      score: row.score,
      ratedAt: row.rated_at,
    },
    { note: row.note ?? undefined, agent: row.agent === '' ? undefined : row.agent },
  );
}

export class RatingsTable {
  readonly #db: Database.Database;
  readonly #prepare: ReturnType<typeof statementCache>;
  readonly #clean: Clean;

  constructor(db: Database.Database, clean: Clean) {
    this.#db = db;
    this.#prepare = statementCache(db);
    this.#clean = clean;
  }

  /**
   * Stores one rater's scores of a run, replacing what that rater gave the same scales before;
   * all of them or none. The scores must already fit the rubric (app/eval/rubrics.ts).
   */
  putRatings(input: NewRatings, now = Date.now()): RatingRecord[] {
    const insert = this.#prepare(
      `INSERT INTO ratings (run_id, agent, rater, scale, score, note, rated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, agent, rater, scale) DO UPDATE SET score = excluded.score,
           note = excluded.note, rated_at = excluded.rated_at`,
    );
    const note = input.note === undefined || input.note === '' ? null : this.#clean(input.note);
    const rater = this.#clean(input.rater);
    this.#db.transaction(() => {
      for (const [scale, score] of Object.entries(input.scores))
        insert.run(input.runId, input.agent ?? '', rater, scale, score, note, now);
    })();
    return this.ratingsOfRun(input.runId);
  }

  /** A run's ratings (the whole run's first, then each agent's), by rater then scale. */
  ratingsOfRun(runId: string): RatingRecord[] {
    return this.#prepare<[string], RatingRow>(
      'SELECT * FROM ratings WHERE run_id = ? ORDER BY agent, rater, scale',
    )
      .all(runId)
      .map(toRating);
  }

  /** The ratings of an eval's items' runs, with the item and variant each run answered. */
  evalRatings(evalId: string): EvalRating[] {
    return this.#prepare<[string], RatingRow & { item: number; variant: string }>(
      `SELECT r.*, i.item, i.variant FROM ratings r
         JOIN eval_items i ON i.run_id = r.run_id
         WHERE i.eval_id = ? ORDER BY i.item, i.variant, r.agent, r.rater, r.scale`,
    )
      .all(evalId)
      .map((row) => ({ ...toRating(row), item: row.item, variant: row.variant }));
  }

  /**
   * Deletes a run's ratings: one rater's (or everyone's), on one scale (or all), of one agent
   * ('' for the whole run's) or of the whole run and every agent.
   */
  deleteRatings(
    runId: string,
    which: { rater?: string; scale?: string; agent?: string } = {},
  ): number {
    return this.#prepare(
      `DELETE FROM ratings WHERE run_id = ? AND (? IS NULL OR rater = ?) AND (? IS NULL OR scale = ?)
         AND (? IS NULL OR agent = ?)`,
    ).run(
      runId,
      which.rater ?? null,
      which.rater ?? null,
      which.scale ?? null,
      which.scale ?? null,
      which.agent ?? null,
      which.agent ?? null,
    ).changes;
  }
}
