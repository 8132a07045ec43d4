/**
 * Run exports: one self-contained JSON file with a run's document, inputs, images, events and
 * its own record of model calls, so anyone can read it or replay it with no key and no network.
 */
import { z } from 'zod';
import type { RatingRecord } from '../eval/types.ts';
import type { CassetteFile } from '../providers/cassette.ts';
import type { RunEvent } from '../runtime/events.ts';
import { upgradeEvent } from '../runtime/legacy-events.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import type { RunRecord, RunStore } from '../store/index.ts';
import { RunsError } from './errors.ts';

/** The `format` an export file names itself with. */
export const EXPORT_FORMAT = 'society-run';

/** A run as one file: what `society export` writes, `society replay` and a store's import read. */
export interface RunExport {
  format: typeof EXPORT_FORMAT;
  version: 1;
  run: RunRecord;
  events: RunEvent[];
  /** The run's model calls (`entries`) and expert calls (`experts`, with the bytes they returned). */
  calls: CassetteFile;
  /**
   * Every binary value the run holds, by sha256: its inputs, what its expert calls returned and
   * its outputs (images, audio, 3D assets), each with its MIME type and base64 bytes.
   */
  blobs: Record<string, { mime: string; base64: string }>;
  /**
   * What people rated the run on a rubric's scales (`society rate`), when anyone did. Kept with the
   * run for whoever reads the file; a replay is a new run, and starts unrated.
   */
  ratings?: RatingRecord[];
}

/** Gathers run `run` from the store into one export: its record, events, calls, images and ratings. */
export function exportRun(store: RunStore, run: RunRecord): RunExport {
  const events = store.events(run.id);
  const calls = store.callRecord(run.id);
  const blobs: RunExport['blobs'] = { ...calls.blobs };
  const hashes = new Set<string>();
  collectBlobHashes([run.inputs, run.outputs, events], hashes);
  for (const hash of hashes) {
    if (blobs[hash]) continue;
    const blob = store.getBlob(hash);
    if (blob) blobs[hash] = { mime: blob.mime, base64: Buffer.from(blob.bytes).toString('base64') };
  }
  const ratings = store.ratingsOfRun(run.id);
  return {
    format: EXPORT_FORMAT,
    version: 1,
    run,
    events,
    calls,
    blobs,
    ...(ratings.length ? { ratings } : {}),
  };
}

/** How many calls an export holds: model calls, expert calls, and both. */
export function exportedCalls(data: RunExport): { model: number; expert: number; total: number } {
  const model = data.calls.entries.length;
  const expert = data.calls.experts?.length ?? 0;
  return { model, expert, total: model + expert };
}

/** Adds the hash of every image or blob reference found in `value`, however deep. */
function collectBlobHashes(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 64 || value === null || typeof value !== 'object') return;
  const hash = blobHashOf(value);
  if (hash) {
    into.add(hash);
    return;
  }
  for (const item of Array.isArray(value) ? value : Object.values(value))
    collectBlobHashes(item, into, depth + 1);
}

/**
 * The events a replay acts on beyond reading them: given outputs and edited messages (see
 * `editsInLog`). Checked whole, so a hand-edited export is refused naming the field, not
 * replayed into a different run.
 */
const GivenOutputs = z.looseObject({
  given: z.literal(true),
  instance: z.string().min(1),
  outputs: z.record(z.string(), z.unknown()),
});
const EditedMessage = z.looseObject({
  edited: z.literal(true),
  from: z.string().min(1),
  text: z.string(),
});

/** A tool result a person replaced at the debugger: a replay gives `result` again. */
const EditedToolResult = z.looseObject({
  edited: z.literal(true),
  callId: z.string().min(1),
  result: z.string(),
  original: z.string(),
  editedBy: z.object({ person: z.string(), via: z.enum(['terminal', 'studio']) }),
});

/** A node's report: whose it is and its kind; the data is the node type's to read. */
const Report = z.looseObject({
  node: z.string().min(1),
  instance: z.string().min(1),
  kind: z.string().min(1),
});

const EventSchema = z
  .looseObject({ type: z.string(), seq: z.number() })
  .superRefine((event, ctx) => {
    const schema =
      event.type === 'node.finished' && 'given' in event
        ? GivenOutputs
        : event.type === 'message' && 'edited' in event
          ? EditedMessage
          : event.type === 'tool.result' && 'edited' in event
            ? EditedToolResult
            : event.type === 'report'
              ? Report
              : undefined;
    const result = schema?.safeParse(event);
    for (const issue of result?.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });

const ExportSchema = z.looseObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(1),
  run: z.looseObject({
    id: z.string(),
    graphName: z.string(),
    documentText: z.string(),
    inputs: z.record(z.string(), z.unknown()),
  }),
  events: z.array(EventSchema),
  calls: z.looseObject({ format: z.literal('society-cassette') }),
  blobs: z.record(z.string(), z.object({ mime: z.string(), base64: z.string() })),
});

/** Reads an export, or explains in one line why it is not one (a RunsError). */
export function parseExport(text: string, source: string): RunExport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new RunsError(`${source} is not JSON: ${(error as Error).message}`);
  }
  const result = ExportSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new RunsError(
      `${source} is not a run export (${issue.path.join('.') || 'file'}: ${issue.message})`,
    );
  }
  const parsed = result.data as unknown as RunExport;
  // Exports written before votes and analytics were reports hold them as events of their own.
  return { ...parsed, events: parsed.events.map(upgradeEvent) };
}
