/** The `blobs` table: bytes (images an expert painted) kept once under their sha256. */

import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

export class BlobsTable {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Stores bytes once under their sha256 hex, which it returns. */
  putBlob(bytes: Uint8Array, mime: string): string {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    this.#db
      .prepare('INSERT OR IGNORE INTO blobs (sha256, mime, bytes) VALUES (?, ?, ?)')
      .run(sha256, mime, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return sha256;
  }

  getBlob(sha256: string): { bytes: Uint8Array; mime: string } | undefined {
    const row = this.#db
      .prepare<[string], { mime: string; bytes: Buffer }>(
        'SELECT mime, bytes FROM blobs WHERE sha256 = ?',
      )
      .get(sha256);
    return row && { bytes: new Uint8Array(row.bytes), mime: row.mime };
  }
}
