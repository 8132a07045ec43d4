/** `society run FILE`: runs a society (live, simulated, or from a cassette) and prints its outputs. */
import { existsSync } from 'node:fs';
import { DEFAULT_PRICES } from '../../costs/prices.ts';
import { Cassette, type CassetteMode } from '../../providers/cassette.ts';
import { documentTextOf, sourceTextOf, storeImages } from '../../runs/record.ts';
import { BlobStore } from '../../runtime/blobs.ts';
import { newRunId } from '../../store/index.ts';
import { splitAssignment } from '../assignment.ts';
import { applyBudgetFlags, type BudgetFlags, checkBudgets } from '../budget-check.ts';
import { compileFile, problemsExit } from '../document-file.ts';
import { EXIT, UsageError } from '../errors.ts';
import { type DisplayFlags, executeRun, printResult } from '../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../hosts.ts';
import { completeRunInputs, fillExamples, readRunInputs } from '../inputs.ts';
import {
  approvedToolsFlag,
  mcpOverrideProfiles,
  refuseMissingMcp,
  runMcpProfiles,
  runToolSources,
} from '../mcp-servers.ts';
import { makeOutputDir, writeOutputs } from '../output-files.ts';
import { cassetteModeOf, refuseMissingKeys } from '../preflight.ts';
import { parseProviders } from '../provider-flags.ts';
import { processRedactor } from '../redaction.ts';
import { openStore, storedOverrides } from '../run-store.ts';
import { parseBreakpoint } from '../stepper.ts';
import { printEstimate } from './estimate.ts';

export interface RunFlags extends DisplayFlags, BudgetFlags, AllowHostFlags {
  input: string[];
  /** `--set NAME=VALUE`: template parameters. */
  set: string[];
  replay?: string;
  replayThenLive?: string;
  /** Answer from the cassette, and from the simulated provider for what it lacks. */
  replayThenSimulated?: string;
  record?: string;
  simulate?: boolean;
  json?: boolean;
  db?: string;
  model: string[];
  provider: string[];
  /** `--mcp NAME=URL`: an MCP server (HTTP) for this run, over a profile of that name. */
  mcp: string[];
  /** `--approve-tools NAME/TOOL,…`: tools whose policy is ask run without asking. */
  approveTools?: string;
  estimate?: boolean;
  step?: boolean;
  break: string[];
  out?: string;
}

/** Runs `file` as the flags say; resolves to the exit code. */
export async function runCommand(file: string, flags: RunFlags): Promise<number> {
  const cassetteFlags = [
    flags.replay,
    flags.replayThenLive,
    flags.replayThenSimulated,
    flags.record,
  ].filter(Boolean);
  if (cassetteFlags.length > 1)
    throw new UsageError(
      'use only one of --replay, --replay-then-live, --replay-then-simulated and --record',
    );
  if (flags.simulate && (flags.replay || flags.replayThenLive || flags.replayThenSimulated)) {
    throw new UsageError(
      '--simulate cannot be combined with --replay (it can with --record; --replay-then-simulated simulates what the cassette lacks)',
    );
  }
  // What the cassette lacks is simulated: labelled so, and the cassette itself is left as it is.
  const simulate = flags.simulate === true || flags.replayThenSimulated !== undefined;

  const providerOverrides = parseProviders(flags.provider);
  mcpOverrideProfiles(flags.mcp); // a bad --mcp is a bad argument, found before the document is read
  const approved = approvedToolsFlag(flags.approveTools);
  const breakpoints = flags.break.map(parseBreakpoint);
  const compiled = await compileFile(
    file,
    (doc) => {
      applyModelOverrides(doc, flags.model);
      applyBudgetFlags(doc, flags);
    },
    flags.set,
  );
  if (!compiled.ok) throw problemsExit(file, compiled.problems);
  const blobs = new BlobStore();
  const given = readRunInputs(flags.input, compiled.plan, blobs);
  for (const line of fillExamples(given, compiled.plan, blobs)) process.stderr.write(`${line}\n`);
  const { inputs, humanAnswers } = given;
  // An estimate needs no values (it counts what is given); a run refuses before it is recorded.
  if (!flags.estimate) completeRunInputs(compiled.plan, inputs);
  // A folder that cannot be made is a bad argument, found before anything runs.
  if (flags.out && !flags.estimate) makeOutputDir(flags.out);
  const store = openStore(flags.db);
  try {
    const prices = { ...DEFAULT_PRICES, ...store.priceTable() };
    // A budget the run cannot meet is refused before anything is recorded (an estimate warns).
    checkBudgets([{ plan: compiled.plan, inputs }], prices, {
      ...flags,
      allowBudgetStop: flags.allowBudgetStop || flags.estimate,
    });
    // Every key any node can use, resolved before anything is recorded or sent.
    const keys = {
      providerOverrides: { ...storedOverrides(store), ...providerOverrides },
      simulate,
      ...cassetteModeOf(flags),
    };
    if (flags.estimate) {
      printEstimate(compiled.plan, prices, inputs, flags.json === true, keys);
      return EXIT.ok;
    }
    // The MCP servers the document names are the user's profiles (or --mcp): checked, not started.
    const mcpProfiles = runMcpProfiles(store, flags.mcp);
    refuseMissingMcp(compiled.plan, mcpProfiles, keys);
    refuseMissingKeys(compiled.plan, keys);
    // Outside hosts the document reaches are the user's to allow, a replay's too (it still
    // plays against a simulator): refused before anything is recorded or sent.
    const allowedOrigins = runOrigins(store, flags);
    refuseUnallowedHosts(compiled.plan, allowedOrigins);
    store.markInterrupted();
    const cassette = await openCassette(flags);
    // A replay gives a person's recorded turns again too (a seat's commands), unless --input
    // gives them.
    const recorded = cassette && cassette.mode !== 'record' ? cassette.cassette.answers() : {};
    const replayedTurns = Object.keys(recorded).filter(
      (name) => !Object.hasOwn(humanAnswers, name),
    );
    if (replayedTurns.length > 0)
      process.stderr.write(
        `using ${replayedTurns.length} answer${replayedTurns.length === 1 ? '' : 's'} of a person recorded in the cassette (${replayedTurns[0]}${replayedTurns.length > 1 ? ` … ${replayedTurns.at(-1)}` : ''})\n`,
      );
    const runId = newRunId();
    store.createRun({
      id: runId,
      document: compiled.doc,
      documentText: documentTextOf(compiled),
      compilerVersion: compiled.machines.compilerVersion,
      mode: flags.replayThenSimulated
        ? 'replay-then-simulated'
        : (cassette?.mode ?? (flags.simulate ? 'simulated' : 'live')),
      inputs,
    });
    storeImages(store, blobs, inputs);
    store.saveGraph(compiled.source, sourceTextOf(compiled));
    const result = await executeRun(compiled, store, flags, {
      runId,
      inputs,
      humanAnswers: { ...recorded, ...humanAnswers },
      blobs,
      prices,
      simulate,
      ...(cassette ? { cassette: { cassette: cassette.cassette, mode: cassette.mode } } : {}),
      providerOverrides: { ...storedOverrides(store), ...providerOverrides },
      breakpoints,
      startPaused: flags.step === true,
      allowedOrigins,
      tools: runToolSources(mcpProfiles),
      ...(approved ? { toolApproval: { approved } } : {}),
    });
    if (cassette && cassette.mode !== 'replay' && !flags.replayThenSimulated) {
      // A person's answers belong to the recording too (a seat's commands), so a replay plays
      // the same turns without asking anyone.
      for (const event of store.events(runId))
        if (event.type === 'human.response')
          cassette.cassette.recordAnswer(event.name, event.answer);
      await cassette.cassette.save(cassette.path, processRedactor);
    }
    printResult(result.result, result.mode, flags.json === true, compiled.params, {
      calls: result.calls,
      db: flags.db,
    });
    if (flags.out && !writeOutputs(flags.out, result.result.outputs, blobs)) return EXIT.runFailed;
    return result.result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}

async function openCassette(
  flags: RunFlags,
): Promise<{ cassette: Cassette; mode: CassetteMode; path: string } | undefined> {
  const path = flags.replay ?? flags.replayThenLive ?? flags.replayThenSimulated ?? flags.record;
  if (!path) return undefined;
  // --replay-then-simulated: the cassette answers first, the simulator (not a model) the rest.
  const mode: CassetteMode = flags.replay
    ? 'replay'
    : flags.replayThenLive || flags.replayThenSimulated
      ? 'replay-then-live'
      : 'record';
  if (mode === 'record' && !existsSync(path))
    return {
      cassette: Cassette.fromJSON({ format: 'society-cassette', version: 1, entries: [] }),
      mode,
      path,
    };
  try {
    return { cassette: await Cassette.load(path), mode, path };
  } catch (error) {
    throw new UsageError(`cannot use cassette ${path}: ${(error as Error).message}`);
  }
}

/** `--model vlm-1=ollama:llava` points an existing profile at another provider and model. */
export function applyModelOverrides(doc: Record<string, unknown>, overrides: string[]): void {
  if (overrides.length === 0) return;
  const models = (doc.models ?? {}) as Record<string, Record<string, unknown>>;
  for (const assignment of overrides) {
    const [profile, target] = splitAssignment(assignment, '--model');
    const colon = target.indexOf(':');
    if (colon <= 0 || colon === target.length - 1)
      throw new UsageError(`--model expects PROFILE=PROVIDER:MODEL, got "${assignment}"`);
    if (!Object.hasOwn(models, profile))
      throw new UsageError(
        `--model: the graph has no model profile "${profile}" (profiles: ${Object.keys(models).join(', ') || 'none'})`,
      );
    models[profile] = {
      ...models[profile],
      provider: target.slice(0, colon),
      model: target.slice(colon + 1),
    };
  }
  doc.models = models;
}
