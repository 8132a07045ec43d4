/**
 * The `calls` table: every model and expert answer a run was given, under its request's
 * cassette key, so the run replays or resumes with no key (`callRecord` is a cassette file).
 */

import type Database from 'better-sqlite3';
import { sha256Hex } from '../../providers/canonical.ts';
import {
  Cassette,
  type CassetteFile,
  canonicalJson,
  type NormalizedRequest,
  normalizeRequest,
  type RecordedResponse,
} from '../../providers/cassette.ts';
import {
  isToolRequest,
  type NormalizedToolRequest,
  type RecordedToolResult,
  toolKey,
  toRecordedTool,
} from '../../providers/cassette-file.ts';
import {
  expertKey,
  isExpertRequest,
  type NormalizedExpertRequest,
  normalizeExpertRequest,
  type RecordedExpertResponse,
  toRecordedExpert,
} from '../../providers/expert-record.ts';
import type { ExpertRequest, ExpertResult } from '../../providers/expert-types.ts';
import type { ToolDefinition } from '../../providers/tools.ts';
import type { ChatRequest, ChatResult } from '../../providers/types.ts';
import type { BlobsTable } from './blobs.ts';
import { type Clean, statementCache } from './sql.ts';

export class CallsTable {
  readonly #db: Database.Database;
  readonly #clean: Clean;
  readonly #blobs: BlobsTable;
  /** Every answer of every run records through the same few statements: prepared once. */
  readonly #prepare: ReturnType<typeof statementCache>;

  constructor(db: Database.Database, clean: Clean, blobs: BlobsTable) {
    this.#db = db;
    this.#prepare = statementCache(db);
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
    if (response.toolCalls?.length)
      recorded.toolCalls = response.toolCalls.map((c) => ({
        id: c.id,
        name: c.name,
        arguments: c.arguments,
      }));
    this.#db
      .transaction(() =>
        this.#appendCall(runId, key, canonicalJson(normalizeRequest(request)), recorded),
      )
      .immediate();
  }

  /** Adds an answer to a request's row of the record, creating the row on its first answer. */
  #appendCall(runId: string, key: string, requestJson: string, recorded: unknown): void {
    const existing = this.#prepare<[string, string], string>(
      'SELECT responses FROM calls WHERE run_id = ? AND key = ?',
    )
      .pluck()
      .get(runId, key);
    if (existing === undefined) {
      this.#prepare('INSERT INTO calls (run_id, key, request, responses) VALUES (?, ?, ?, ?)').run(
        runId,
        key,
        this.#clean(requestJson),
        this.#clean(JSON.stringify([recorded])),
      );
    } else {
      this.#prepare('UPDATE calls SET responses = ? WHERE run_id = ? AND key = ?').run(
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

  /** Appends a tool call's result (see `RunStore.recordToolCall`). */
  recordToolCall(
    runId: string,
    request: Omit<NormalizedToolRequest, 'kind'>,
    result: RecordedToolResult,
  ): void {
    const normalized: NormalizedToolRequest = {
      kind: 'tool',
      source: request.source,
      tool: request.tool,
      arguments: request.arguments,
    };
    this.#db
      .transaction(() =>
        this.#appendCall(
          runId,
          toolKey(request),
          canonicalJson(normalized),
          toRecordedTool(result),
        ),
      )
      .immediate();
  }

  /** Keeps the tools a source offered in the run (see `RunStore.recordToolList`). */
  recordToolList(runId: string, source: string, tools: ToolDefinition[]): void {
    const request = { kind: 'tool-list', source };
    const json = canonicalJson(request);
    this.#db
      .prepare(
        'INSERT INTO calls (run_id, key, request, responses) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, key) DO UPDATE SET responses = excluded.responses',
      )
      .run(runId, sha256Hex(json), this.#clean(json), this.#clean(JSON.stringify([tools])));
  }

  /** The run's calls as a cassette file (see `RunStore.callRecord`). */
  callRecord(runId: string): CassetteFile {
    const rows = this.#prepare<[string], { key: string; request: string; responses: string }>(
      'SELECT key, request, responses FROM calls WHERE run_id = ? ORDER BY key',
    )
      .all(runId)
      .map((row) => ({ key: row.key, request: JSON.parse(row.request), responses: row.responses }));
    const experts = rows.filter((row) => isExpertRequest(row.request));
    const tools = rows.filter((row) => isToolRequest(row.request));
    const lists = rows.filter((row) => isToolList(row.request));
    const file: CassetteFile = {
      format: 'society-cassette',
      version: 1,
      entries: rows
        .filter(
          (row) =>
            !isExpertRequest(row.request) &&
            !isToolRequest(row.request) &&
            !isToolList(row.request),
        )
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
    if (tools.length > 0) {
      file.tools = tools.map((row) => ({
        key: row.key,
        request: row.request as NormalizedToolRequest,
        responses: JSON.parse(row.responses) as RecordedToolResult[],
      }));
    }
    if (lists.length > 0) {
      file.toolLists = Object.fromEntries(
        lists.map((row) => [
          (row.request as { source: string }).source,
          (JSON.parse(row.responses) as ToolDefinition[][]).at(-1) ?? [],
        ]),
      );
    }
    // Through Cassette, so the result is validated and laid out exactly as a cassette file.
    return Cassette.fromJSON(file, `the calls of run ${runId}`).toJSON();
  }
}

/** Whether a stored request is a source's tool list. */
function isToolList(request: unknown): boolean {
  return (
    typeof request === 'object' &&
    request !== null &&
    (request as { kind?: unknown }).kind === 'tool-list'
  );
}
