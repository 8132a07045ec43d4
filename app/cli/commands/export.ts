/** `society export RUN`: one self-contained JSON file (document, inputs, events, its calls). */
import { writeFileSync } from 'node:fs';
import { exportedCalls, exportRun } from '../../runs/export.ts';
import { UsageError } from '../errors.ts';
import { KEY_ADVICE, keyShapedIn } from '../key-shaped.ts';
import { processRedactor } from '../redaction.ts';
import { findRun, openStore } from '../run-store.ts';

export function exportCommand(id: string, flags: { output?: string; db?: string }): void {
  const store = openStore(flags.db);
  try {
    const run = findRun(store, id);
    const target = flags.output ?? `${run.id}.run.json`;
    const data = processRedactor.apply(exportRun(store, run));
    // As the editor's Export: a key-shaped string anywhere but in the files' bytes, and the file
    // is not written. Known keys are already [redacted]; this catches the ones no variable holds.
    // The document parsed, so the path names the node and field rather than only its text.
    const { blobs: _bytes, run: record, ...rest } = data;
    const { documentText, ...fields } = record;
    let document: unknown = documentText;
    try {
      document = JSON.parse(documentText);
    } catch {
      // Checked as text.
    }
    const holding = keyShapedIn({ document, run: fields, ...rest });
    if (holding)
      throw new UsageError(
        `not exported: ${holding} holds what looks like a key. ${KEY_ADVICE} and export again`,
      );
    try {
      writeFileSync(target, `${JSON.stringify(data)}\n`);
    } catch (error) {
      throw new UsageError(`cannot write ${target}: ${(error as Error).message}`);
    }
    const calls = exportedCalls(data);
    const files = Object.keys(data.blobs).length;
    process.stdout.write(
      `${target}: run ${run.id}, ${plural(data.events.length, 'event')}, ${plural(calls.total, 'recorded call')} (${calls.model} model, ${calls.expert} expert), ${plural(files, 'file')} (images, audio, 3D)${data.ratings ? `, ${plural(data.ratings.length, 'rating')}` : ''}\n`,
    );
  } finally {
    store.close();
  }
}

const plural = (n: number, word: string) =>
  `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
