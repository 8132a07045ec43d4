/**
 * `society eval-import DIR`: opens an eval bundle (export.ts) in another store. Every file the
 * manifest lists is checked against its sha256 first, so a changed or missing file is refused
 * by name before anything is written. Then its runs are imported (the debugger opens them),
 * and the eval and its item records are created as they were, so `society eval-show` prints
 * the same table.
 *
 * `rescoreEval` scores the stored predictions against the stored references again with another
 * built-in text scorer, as a new eval beside the imported one: it calls no model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseExport } from '../../runs/export.ts';
import type { RunStore } from '../../store/index.ts';
import { evalIdentity } from '../identity.ts';
import { TEXT_SCORERS, textScorer } from '../scorers.ts';
import type { EvalItemRecord, EvalRating, EvalRecord } from '../types.ts';
import { type BundleManifest, ManifestSchema, sha256Of } from './manifest.ts';

/** A bundle that cannot be opened, in one line (a changed file, a missing one, a bad field). */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

const EvalFile = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  config: z.looseObject({ variants: z.array(z.looseObject({ name: z.string() })) }),
  status: z.enum(['running', 'finished', 'interrupted', 'over-budget']),
  items: z.number().int().nonnegative(),
  simulated: z.boolean(),
  ratings: z
    .array(
      z.looseObject({ runId: z.string(), rater: z.string(), scale: z.string(), score: z.number() }),
    )
    .optional(),
});

const ItemLine = z.looseObject({
  item: z.number().int().nonnegative(),
  variant: z.string(),
  jobKey: z.string(),
  status: z.enum(['running', 'scored', 'failed']),
  costUsd: z.number(),
  tokens: z.number(),
  calls: z.number(),
});

/** A bundle read and checked: its manifest, the eval's record, its items and ratings. */
export interface OpenedBundle {
  dir: string;
  manifest: BundleManifest;
  record: EvalRecord;
  items: EvalItemRecord[];
  ratings: EvalRating[];
}

function why(issue: z.core.$ZodIssue | undefined): string {
  return issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'not valid';
}

function readChecked(dir: string, path: string, hash: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, path));
  } catch {
    throw new BundleError(`${path} is missing from the bundle ${dir}`);
  }
  if (sha256Of(bytes) !== hash)
    throw new BundleError(
      `${path} has changed since the bundle was written (its sha256 is not the manifest's): not imported`,
    );
  return bytes;
}

/** Reads the bundle in `dir` and checks every file it lists; a BundleError names what is wrong. */
export function openBundle(dir: string): OpenedBundle {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch (error) {
    throw new BundleError(
      `${dir} is not an eval bundle: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it has no manifest.json' : `manifest.json: ${(error as Error).message}`}`,
    );
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success)
    throw new BundleError(
      `${dir}/manifest.json is not an eval bundle's (${why(parsed.error.issues[0])})`,
    );
  const manifest = parsed.data;
  const contents = new Map<string, Buffer>();
  for (const [path, hash] of Object.entries(manifest.files))
    contents.set(path, readChecked(dir, path, hash));
  for (const path of ['eval.json', 'items.jsonl', ...manifest.runs])
    if (!contents.has(path)) throw new BundleError(`${dir}/manifest.json does not list ${path}`);

  const evalFile = EvalFile.safeParse(JSON.parse(contents.get('eval.json')!.toString('utf8')));
  if (!evalFile.success) throw new BundleError(`eval.json: ${why(evalFile.error.issues[0])}`);
  const { ratings = [], ...record } = evalFile.data;
  const items: EvalItemRecord[] = [];
  const lines = contents.get('items.jsonl')!.toString('utf8').split('\n');
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const item = ItemLine.safeParse(JSON.parse(line));
    if (!item.success)
      throw new BundleError(`items.jsonl line ${index + 1}: ${why(item.error.issues[0])}`);
    const { inputs: _inputs, outputs: _outputs, ...fields } = item.data;
    items.push({ ...fields, evalId: record.id } as EvalItemRecord);
  });
  return {
    dir,
    manifest,
    record: record as unknown as EvalRecord,
    items,
    ratings: ratings as unknown as EvalRating[],
  };
}

/** What an import did. */
export interface ImportResult {
  evalId: string;
  /** False when the store already held this eval (it is left as it is). */
  created: boolean;
  runs: { imported: number; present: number };
}

/** Writes the bundle's runs, eval and items into `store`. */
export function importBundle(store: RunStore, bundle: OpenedBundle): ImportResult {
  const runs = { imported: 0, present: 0 };
  for (const path of bundle.manifest.runs) {
    const data = parseExport(readFileSync(join(bundle.dir, path), 'utf8'), path);
    if (store.importRun(data) === 'present') runs.present++;
    else runs.imported++;
  }
  const { record } = bundle;
  if (store.getEval(record.id)?.id === record.id)
    return { evalId: record.id, created: false, runs };
  store.openEval({
    id: record.id,
    name: record.name,
    config: record.config,
    items: record.items,
    simulated: record.simulated,
  });
  for (const item of bundle.items) {
    const { updatedAt: _updated, ...rest } = item;
    store.putEvalItem(rest);
  }
  putRatings(store, bundle.ratings);
  store.setEvalStatus(record.id, record.status);
  return { evalId: record.id, created: true, runs };
}

/** The ratings again, one call per run × rater (a rating names a run the bundle imported). */
function putRatings(store: RunStore, ratings: readonly EvalRating[]): void {
  const groups = new Map<
    string,
    { runId: string; rater: string; note?: string; scores: Record<string, number> }
  >();
  for (const r of ratings) {
    if (!store.getRun(r.runId)) continue;
    const key = `${r.runId}\u0000${r.rater}`;
    const group = groups.get(key) ?? {
      runId: r.runId,
      rater: r.rater,
      ...(r.note !== undefined ? { note: r.note } : {}),
      scores: {},
    };
    group.scores[r.scale] = r.score;
    groups.set(key, group);
  }
  for (const group of groups.values()) store.putRatings(group);
}

/** The scorers a bundle can be re-scored with: those that need no model. */
export const RESCORERS: readonly string[] = TEXT_SCORERS;

/**
 * Scores the eval's stored predictions against its stored references again with `scorer`, as a
 * new eval (id from the original's and the scorer's): same items, runs, costs and tokens; a failed
 * item stays failed. Returns the new eval's id. Calls no model.
 */
export async function rescoreEval(
  store: RunStore,
  evalId: string,
  scorer: string,
): Promise<string> {
  if (!RESCORERS.includes(scorer))
    throw new BundleError(
      `--rescore ${scorer}: re-scoring calls no model, so it takes a text scorer: ${RESCORERS.join(', ')}`,
    );
  const record = store.getEval(evalId);
  if (!record) throw new BundleError(`no eval ${evalId} to re-score`);
  const score = textScorer(scorer);
  const id = evalIdentity({ rescored: record.id, scorer });
  store.openEval({
    id,
    name: `${record.name} · re-scored ${scorer}`,
    config: { ...record.config, scorer: { name: scorer } },
    items: record.items,
    simulated: record.simulated,
  });
  for (const item of store.evalItems(record.id)) {
    const { updatedAt: _updated, evalId: _from, ...rest } = item;
    const again =
      item.status === 'scored'
        ? { score: await score.score(item.prediction, item.reference, { row: {} }) }
        : {};
    store.putEvalItem({ ...rest, evalId: id, ...again });
  }
  store.setEvalStatus(id, record.status);
  return id;
}
