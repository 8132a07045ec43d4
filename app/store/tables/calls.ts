/**
 * The `calls` table: every model and expert answer a run was given, under its request's
 * cassette key, so the run replays or resumes with no key (`callRecord` is a cassette file).
 */

import type Database from 'better-sqlite3';
import {
  Cassette,
  type CassetteFile,
  canonicalJson,
  type NormalizedRequest,
  normalizeRequest,
  type RecordedResponse,
} from '../../providers/cassette.ts';
import {
  expertKey,
  isExpertRequest,
  type NormalizedExpertRequest,
  normalizeExpertRequest,
  type RecordedExpertResponse,
  toRecordedExpert,
} from '../../providers/expert-record.ts';
import type { ExpertRequest, ExpertResult } from '../../providers/expert-types.ts';
import type { ChatRequest, ChatResult } from '../../providers/types.ts';
import type { BlobsTable } from './blobs.ts';
import type { Clean } from './sql.ts';

export class CallsTable {
  readonly #db: Database.Database;
  readonly #clean: Clean;
  readonly #blobs: BlobsTable;

  constructor(db: Database.Database, clean: Clean, blobs: BlobsTable) {
    this.#db = db;
    this.#clean = clean;
    this.#blobs = blobs;
  }

  /** Appends a model answer to the run's record of calls (see `RunStore.recordCall`). */
  recordCall(
    runId: string,
    key: string,
    request: NormalizedRequest | ChatRequest,
    response: RecordedResponse | ChatResult,
  ): void {
    if (!/^[0-9a-f]{64}$/.test(key)) {
      throw new Error(`call key must be a sha256 hex string (requestKey), got "${key}"`);
    }
    const recorded: RecordedResponse = {
      text: response.text,
      usage: {
        promptTokens: response.usage.promptTokens,
        completionTokens: response.usage.completionTokens,
      },
      model: response.model,
    };
    if (response.finishReason !== undefined) recorded.finishReason = response.finishReason;
    if (response.simulated) recorded.simulated = true;
    this.#db
      .transaction(() =>
        this.#appendCall(runId, key, canonicalJson(normalizeRequest(request)), recorded),
      )
      .immediate();
  }

  /** Adds an answer to a request's row of the record, creating the row on its first answer. */
  #appendCall(runId: string, key: string, requestJson: string, recorded: unknown): void {
    const existing = this.#db
      .prepare<[string, string], string>('SELECT responses FROM calls WHERE run_id = ? AND key = ?')
      .pluck()
      .get(runId, key);
    if (existing === undefined) {
      this.#db
        .prepare('INSERT INTO calls (run_id, key, request, responses) VALUES (?, ?, ?, ?)')
        .run(runId, key, this.#clean(requestJson), this.#clean(JSON.stringify([recorded])));
    } else {
      this.#db
        .prepare('UPDATE calls SET responses = ? WHERE run_id = ? AND key = ?')
        .run(
          this.#clean(JSON.stringify([...(JSON.parse(existing) as unknown[]), recorded])),
          runId,
          key,
        );
    }
  }

  /** Appends an expert model's answer (see `RunStore.recordExpertCall`). */
  recordExpertCall(
    runId: string,
    request: ExpertRequest,
    result: ExpertResult,
    key: string = expertKey(request),
  ): void {
    this.#db
      .transaction(() => {
        const recorded = toRecordedExpert(result, (blob) =>
          this.#blobs.putBlob(blob.bytes, blob.mime),
        );
        this.#appendCall(runId, key, canonicalJson(normalizeExpertRequest(request)), recorded);
      })
      .immediate();
  }

  /** The run's calls as a cassette file (see `RunStore.callRecord`). */
  callRecord(runId: string): CassetteFile {
    const rows = this.#db
      .prepare<[string], { key: string; request: string; responses: string }>(
        'SELECT key, request, responses FROM calls WHERE run_id = ? ORDER BY key',
      )
      .all(runId)
      .map((row) => ({ key: row.key, request: JSON.parse(row.request), responses: row.responses }));
    const experts = rows.filter((row) => isExpertRequest(row.request));
    const file: CassetteFile = {
      format: 'society-cassette',
      version: 1,
      entries: rows
        .filter((row) => !isExpertRequest(row.request))
        .map((row) => ({
          key: row.key,
          request: row.request as NormalizedRequest,
          responses: JSON.parse(row.responses) as RecordedResponse[],
        })),
    };
    if (experts.length > 0) {
      file.experts = experts.map((row) => ({
        key: row.key,
        request: row.request as NormalizedExpertRequest,
        responses: JSON.parse(row.responses) as RecordedExpertResponse[],
      }));
      file.blobs = {};
      for (const entry of file.experts) {
        for (const response of entry.responses) {
          const output = response.output;
          if (typeof output !== 'object' || Array.isArray(output)) continue;
          const blob = this.#blobs.getBlob(output.$blob);
          if (blob)
            file.blobs[output.$blob] = {
              mime: blob.mime,
              base64: Buffer.from(blob.bytes).toString('base64'),
            };
        }
      }
    }
    // Through Cassette, so the result is validated and laid out exactly as a cassette file.
    return Cassette.fromJSON(file, `the calls of run ${runId}`).toJSON();
  }
}
