/**
 * Document migrations. Each step turns a document of version N into version N+1; loading runs
 * every step from the document's version up to DOCUMENT_VERSION. A new format version adds one
 * entry here and a test with a document in the old shape.
 */
import { DOCUMENT_VERSION } from './document.ts';

export type RawDocument = Record<string, unknown>;

export interface Migration {
  from: number;
  /** Why the format changed, shown when a document is upgraded. */
  description: string;
  up(doc: RawDocument): RawDocument;
}

/** Version 1 is the first public format; later migrations append here. */
export const MIGRATIONS: Migration[] = [];

export type MigrationResult =
  | { ok: true; doc: RawDocument; applied: Migration[] }
  | { ok: false; message: string };

/** Brings a raw document up to the current version, or explains why it cannot. */
export function migrateDocument(
  doc: RawDocument,
  migrations: readonly Migration[] = MIGRATIONS,
  target: number = DOCUMENT_VERSION,
): MigrationResult {
  const version = doc.version;
  if (version === undefined) {
    return { ok: false, message: `missing "version" (this build reads versions 1 to ${target})` };
  }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return {
      ok: false,
      message: `"version" must be a positive integer, got ${JSON.stringify(version)}`,
    };
  }
  if (version > target) {
    return {
      ok: false,
      message: `document version ${version} was written by a newer Society Studio (this build reads up to ${target})`,
    };
  }
  let current = doc;
  const applied: Migration[] = [];
  for (let v = version; v < target; v++) {
    const step = migrations.find((m) => m.from === v);
    if (!step) return { ok: false, message: `no migration from version ${v} to ${v + 1}` };
    current = { ...step.up(current), version: v + 1 };
    applied.push(step);
  }
  return { ok: true, doc: current, applied };
}
