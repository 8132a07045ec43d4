/** `society replay EXPORT`: the export's document and inputs, answered strictly by its calls. */
import { readFileSync } from 'node:fs';
import { compileGraph } from '../../compiler/index.ts';
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import { Cassette } from '../../providers/cassette.ts';
import { parseExport } from '../../runs/export.ts';
import { storeImages } from '../../runs/record.ts';
import { BlobStore } from '../../runtime/blobs.ts';
import { editsInLog } from '../../runtime/engine.ts';
import { blobHashOf } from '../../schema/blob-refs.ts';
import { newRunId } from '../../store/index.ts';
import { problemsExit } from '../document-file.ts';
import { EXIT, UsageError } from '../errors.ts';
import { type DisplayFlags, executeRun, printResult } from '../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../hosts.ts';
import { makeOutputDir, writeOutputs } from '../output-files.ts';
import { openStore } from '../run-store.ts';

export interface ReplayFlags extends DisplayFlags, AllowHostFlags {
  json?: boolean;
  db?: string;
  out?: string;
}

/**
 * Replays the exported run in `path` with no key and no model call (a simulator it reaches is
 * played again, once its origin is allowed); resolves to the exit code.
 */
export async function replayCommand(path: string, flags: ReplayFlags): Promise<number> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  // A file that is not an export is refused as a usage error (exit 2), naming the field.
  const data = parseExport(text, path);
  const compiled = await compileGraph(data.run.documentText, await loadNodeRegistry());
  if (!compiled.ok) throw problemsExit(path, compiled.problems);
  const blobs = new BlobStore();
  for (const [hash, blob] of Object.entries(data.blobs)) {
    const ref = blobs.put(Buffer.from(blob.base64, 'base64'), blob.mime);
    if (blobHashOf(ref) !== hash)
      throw new UsageError(`${path}: blob ${hash.slice(0, 12)}… does not match its bytes`);
  }
  const answers = Object.fromEntries(
    data.events.flatMap((e) =>
      e.type === 'human.response'
        ? [[(e as { name: string }).name, (e as { answer: string }).answer]]
        : [],
    ),
  );
  if (flags.out) makeOutputDir(flags.out);
  const store = openStore(flags.db);
  try {
    // A cassette holds model calls only: a simulator the document reaches is contacted again.
    const allowedOrigins = runOrigins(store, flags);
    refuseUnallowedHosts(compiled.plan, allowedOrigins);
    const runId = newRunId();
    store.createRun({
      id: runId,
      document: compiled.doc,
      documentText: data.run.documentText,
      compilerVersion: compiled.machines.compilerVersion,
      mode: 'replay',
      inputs: data.run.inputs,
    });
    storeImages(store, blobs, data.run.inputs);
    const { result, mode, calls } = await executeRun(compiled, store, flags, {
      runId,
      inputs: data.run.inputs,
      humanAnswers: answers,
      blobs,
      cassette: { cassette: Cassette.fromJSON(data.calls, path), mode: 'replay' },
      allowedOrigins,
      // A fork's edits and the debugger's travel in its events: the edited instances give
      // their edited values again instead of asking a model the record never answered.
      ...editsInLog(data.events),
    });
    printResult(result, mode, flags.json === true, compiled.params, { calls, db: flags.db });
    if (flags.out && !writeOutputs(flags.out, result.outputs, blobs)) return EXIT.runFailed;
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}
