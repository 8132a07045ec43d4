/** `society resume RUN`: finishes an interrupted run from its log and its own call record. */
import { compileGraph } from '../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../costs/prices.ts';
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import { Cassette } from '../../providers/cassette.ts';
import { BlobStore } from '../../runtime/blobs.ts';
import { problemsExit } from '../document-file.ts';
import { EXIT, UsageError } from '../errors.ts';
import { type DisplayFlags, executeRun, printResult } from '../execute.ts';
import { readRunInputs } from '../inputs.ts';
import { refuseMissingKeys } from '../preflight.ts';
import { parseProviders } from '../provider-flags.ts';
import { loadImages } from '../record.ts';
import { findRun, openStore, storedOverrides } from '../run-store.ts';

export interface ResumeFlags extends DisplayFlags {
  input: string[];
  db?: string;
  simulate?: boolean;
  provider: string[];
  json?: boolean;
}

/** Resumes run `id`; calls it already made are answered from its record. Resolves to the exit code. */
export async function resumeCommand(id: string, flags: ResumeFlags): Promise<number> {
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const run = findRun(store, id);
    if (run.status === 'running') {
      throw new UsageError(
        `run ${run.id} is still running in another process; wait for it or stop it first`,
      );
    }
    if (run.status !== 'interrupted') {
      throw new UsageError(
        `run ${run.id} has already ended (${run.status}); only an interrupted run can be resumed`,
      );
    }
    const compiled = await compileGraph(run.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${run.id}`, compiled.problems);
    if (compiled.machines.compilerVersion !== run.compilerVersion) {
      throw new UsageError(
        `run ${run.id} was made by compiler version ${run.compilerVersion}; this build has ${compiled.machines.compilerVersion} and cannot resume it`,
      );
    }
    const blobs = new BlobStore();
    const missing = loadImages(store, blobs, run.inputs);
    if (missing.length)
      throw new UsageError(`run ${run.id}: the store lacks the image for ${missing.join(', ')}`);
    const { humanAnswers } = readRunInputs(flags.input, compiled.plan, blobs);
    const record = Cassette.fromJSON(store.callRecord(run.id), `run ${run.id}`);
    const logged = store.events(run.id);
    // Calls the record lacks go live: every key the run can use is checked before reopening it.
    refuseMissingKeys(compiled.plan, {
      providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
      simulate:
        flags.simulate === true || run.mode === 'simulated' || run.mode === 'replay-then-simulated',
      cassetteMode: 'replay-then-live',
    });
    store.reopenRun(run.id);
    process.stderr.write(
      `society: resuming run ${run.id} after event ${logged.at(-1)?.seq ?? 0}; ${record.size} answered calls come from its record\n`,
    );
    const { result, mode } = await executeRun(compiled, store, flags, {
      runId: run.id,
      inputs: run.inputs,
      humanAnswers,
      blobs,
      prices: { ...DEFAULT_PRICES, ...store.priceTable() },
      simulate:
        flags.simulate === true || run.mode === 'simulated' || run.mode === 'replay-then-simulated',
      providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
      cassette: { cassette: record, mode: 'replay-then-live' },
      continueFrom: logged,
    });
    printResult(result, mode, flags.json === true, compiled.params);
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}
