/**
 * `--repeats N`: every item × variant of an eval runs N times. A repeat is its own job with its
 * own key (so a rerun resumes it) and its own run seed, written into the document text the run
 * stores, so the seed a repeat ran with is in its run and the same repeat always draws the same.
 *
 * Repeat 0 is the job as planned, unchanged: an eval run once keeps the id, job keys and runs it
 * had before repeats existed. Repeat r ≥ 1 runs with seed r when the document sets none (the
 * default seed is 0, repeat 0's), and with `s:r` when it sets its own seed s: a command whose
 * items differ by seed (one per item, 1…N) keeps every item × repeat on a seed of its own.
 */
import { createHash } from 'node:crypto';
import { evalIdentity } from './identity.ts';
import type { PlannedJob } from './runner.ts';

/** The seed repeat `repeat` runs with, given the document's own (`settings.seed`). */
export function repeatSeed(documentSeed: unknown, repeat: number): number | string {
  if (documentSeed === undefined || documentSeed === null) return repeat;
  return `${String(documentSeed)}:${repeat}`;
}

/** The job key of repeat `repeat` of the job keyed `jobKey`: the same key for repeat 0. */
export function repeatJobKey(jobKey: string, repeat: number): string {
  if (repeat === 0) return jobKey;
  return createHash('sha256')
    .update(`${jobKey}\u0000repeat\u0000${repeat}`)
    .digest('hex')
    .slice(0, 32);
}

/**
 * The id of an eval whose items run `repeats` times: the id it has when run once, unless
 * `repeats` is above 1 (then another eval, which a rerun with the same N resumes).
 */
export function repeatedEvalId(evalId: string, repeats: number): string {
  return repeats > 1 ? evalIdentity({ eval: evalId, repeats }) : evalId;
}

/** `documentText` (a document as JSON) with its run seed set for repeat `repeat`. */
export function seededDocumentText(documentText: string, repeat: number): string {
  if (repeat === 0) return documentText;
  let doc: { settings?: Record<string, unknown> };
  try {
    doc = JSON.parse(documentText) as typeof doc;
  } catch {
    // Not a document (a job that cannot run carries whatever it had): nothing to seed.
    return documentText;
  }
  const settings = doc.settings ?? {};
  doc.settings = { ...settings, seed: repeatSeed(settings.seed, repeat) };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * `plan` with every job run `repeats` times, under the eval `evalId`: per job, repeats 0 to
 * N − 1 in order. A job that cannot run (its row lacks a field) fails in every repeat.
 */
export function repeatPlan(
  plan: readonly PlannedJob[],
  repeats: number,
  evalId: string,
): PlannedJob[] {
  const seeded = new Map<string, string>();
  const textFor = (text: string, repeat: number) => {
    const key = `${repeat}\u0000${text}`;
    let found = seeded.get(key);
    if (found === undefined) {
      found = seededDocumentText(text, repeat);
      seeded.set(key, found);
    }
    return found;
  };
  const out: PlannedJob[] = [];
  for (const planned of plan)
    for (let repeat = 0; repeat < Math.max(1, repeats); repeat++)
      out.push({
        ...planned,
        job: {
          ...planned.job,
          evalId,
          ...(repeat > 0 ? { repeat } : {}),
          jobKey: repeatJobKey(planned.job.jobKey, repeat),
          documentText: textFor(planned.job.documentText, repeat),
        },
      });
  return out;
}
