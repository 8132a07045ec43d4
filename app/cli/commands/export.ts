/** `society export RUN`: one self-contained JSON file (document, inputs, events, its calls). */
import { writeFileSync } from 'node:fs';
import { UsageError } from '../errors.ts';
import { exportRun } from '../export.ts';
import { processRedactor } from '../redaction.ts';
import { findRun, openStore } from '../run-store.ts';

export function exportCommand(id: string, flags: { output?: string; db?: string }): void {
  const store = openStore(flags.db);
  try {
    const run = findRun(store, id);
    const target = flags.output ?? `${run.id}.run.json`;
    const data = processRedactor.apply(exportRun(store, run));
    try {
      writeFileSync(target, `${JSON.stringify(data)}\n`);
    } catch (error) {
      throw new UsageError(`cannot write ${target}: ${(error as Error).message}`);
    }
    process.stdout.write(
      `${target}: run ${run.id}, ${data.events.length} events, ${data.calls.entries.length} recorded calls\n`,
    );
  } finally {
    store.close();
  }
}
