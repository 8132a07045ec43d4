/**
 * The `interviews` table: questions put to a run's members after the fact (the debugger's `ask`,
 * `society interview`, the studio's Ask box), each with its answer. They are side calls: kept
 * apart from the run's events and its record of calls, so replay, resume, forks, analytics and
 * the run's outputs never see them. An interview belongs to its run (deleting the run deletes it).
 */
import type Database from 'better-sqlite3';
import { type Clean, statementCache } from './sql.ts';

/** One side call: who was asked, in which call's context, what, and what came back. */
export interface InterviewRecord {
  id: number;
  runId: string;
  /** The instance asked (`member#2@r3`). */
  instance: string;
  /** The call whose context the question was asked in (`member#2@r3:1`). */
  callId: string;
  /** Where that call is in the run's log (its `model.request` event's seq). */
  atSeq: number;
  question: string;
  answer: string;
  /** The model profile, the provider and model that answered (`simulated` under --simulate). */
  profile: string;
  provider: string;
  model: string;
  /** The answer was made up by the simulated provider. */
  simulated: boolean;
  promptTokens: number;
  completionTokens: number;
  askedAt: number;
}

export type NewInterview = Omit<InterviewRecord, 'id' | 'askedAt'>;

interface InterviewRow {
  id: number;
  run_id: string;
  instance: string;
  call_id: string;
  at_seq: number;
  question: string;
  answer: string;
  profile: string;
  provider: string;
  model: string;
  simulated: number;
  prompt_tokens: number;
  completion_tokens: number;
  asked_at: number;
}

function toInterview(row: InterviewRow): InterviewRecord {
  return {
    id: row.id,
    runId: row.run_id,
    instance: row.instance,
    callId: row.call_id,
    atSeq: row.at_seq,
    question: row.question,
    answer: row.answer,
    profile: row.profile,
    provider: row.provider,
    model: row.model,
    simulated: row.simulated === 1,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    askedAt: row.asked_at,
  };
}

export class InterviewsTable {
  readonly #prepare: ReturnType<typeof statementCache>;
  readonly #clean: Clean;

  constructor(db: Database.Database, clean: Clean) {
    this.#prepare = statementCache(db);
    this.#clean = clean;
  }

  /** Stores one question and its answer (texts scrubbed of keys); returns the record. */
  add(input: NewInterview, now = Date.now()): InterviewRecord {
    const { lastInsertRowid } = this.#prepare(
      `INSERT INTO interviews (run_id, instance, call_id, at_seq, question, answer, profile,
         provider, model, simulated, prompt_tokens, completion_tokens, asked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      input.runId,
      input.instance,
      input.callId,
      input.atSeq,
      this.#clean(input.question),
      this.#clean(input.answer),
      input.profile,
      input.provider,
      input.model,
      input.simulated ? 1 : 0,
      input.promptTokens,
      input.completionTokens,
      now,
    );
    return {
      ...input,
      question: this.#clean(input.question),
      answer: this.#clean(input.answer),
      id: Number(lastInsertRowid),
      askedAt: now,
    };
  }

  /** A run's interviews, oldest first. */
  ofRun(runId: string): InterviewRecord[] {
    return this.#prepare<[string], InterviewRow>(
      'SELECT * FROM interviews WHERE run_id = ? ORDER BY id',
    )
      .all(runId)
      .map(toInterview);
  }
}
