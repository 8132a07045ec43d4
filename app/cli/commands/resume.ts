/**
 * `society resume RUN`: finishes an interrupted run from its log and its own call record, or
 * continues a failed or cancelled one (once the cause is fixed) as a new run from its record.
 * Either way every call the run answered is served from its record; only the rest is sent.
 */
import { type CompileResult, compileGraph } from '../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../costs/prices.ts';
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import {
  answersSimulated,
  type ContinuationRefusal,
  continuationRefusal,
  planContinuation,
} from '../../runs/continue.ts';
import { planReopen } from '../../runs/reopen.ts';
import type { RunOptions } from '../../runtime/engine.ts';
import type { RunEvent } from '../../runtime/events.ts';
import { newRunId, type RunRecord, type RunStore } from '../../store/index.ts';
import { problemsExit } from '../document-file.ts';
import { EXIT, UsageError } from '../errors.ts';
import { type DisplayFlags, executeRun, printResult } from '../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../hosts.ts';
import { readRunInputs } from '../inputs.ts';
import {
  approvedToolsFlag,
  mcpOverrideProfiles,
  refuseMissingMcp,
  runMcpProfiles,
  runToolSources,
} from '../mcp-servers.ts';
import { refuseMissingKeys } from '../preflight.ts';
import { parseProviders } from '../provider-flags.ts';
import { findRun, openStore, storedOverrides } from '../run-store.ts';

export interface ResumeFlags extends DisplayFlags, AllowHostFlags {
  input: string[];
  db?: string;
  simulate?: boolean;
  provider: string[];
  /** `--mcp NAME=URL`: the MCP server (HTTP) a run made with `run --mcp` reaches again. */
  mcp?: string[];
  /** `--approve-tools NAME/TOOL,…`: tools whose policy is ask run without asking. */
  approveTools?: string;
  json?: boolean;
}

/** What the terminal adds to a refusal: the command or flag that does what was asked. */
const REFUSAL_HINTS: Record<ContinuationRefusal['reason'], (id: string) => string> = {
  running: () => '',
  succeeded: (id) => ` (\`society fork ${id} --at SEQ\` runs it again from a point)`,
  replay: () => ' (simulated answers: --simulate)',
};

/** The run to go on with, how, and what it starts from. */
interface Resumption {
  runId: string;
  options: Omit<RunOptions, 'registry' | 'runId' | 'experts'>;
  /** Events written to the store before the run's own (a continuation's kept log). */
  prior: RunEvent[];
}

/** Resumes or continues run `id`; calls it already made are answered from its record. Resolves to the exit code. */
export async function resumeCommand(id: string, flags: ResumeFlags): Promise<number> {
  mcpOverrideProfiles(flags.mcp); // a bad --mcp is a bad argument, found before the store is read
  const approved = approvedToolsFlag(flags.approveTools);
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const run = findRun(store, id);
    const refusal = continuationRefusal(run, flags.simulate === true);
    if (refusal) throw new UsageError(`${refusal.message}${REFUSAL_HINTS[refusal.reason](run.id)}`);
    const compiled = await compileGraph(run.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${run.id}`, compiled.problems);
    if (compiled.machines.compilerVersion !== run.compilerVersion) {
      throw new UsageError(
        `run ${run.id} was made by compiler version ${run.compilerVersion}; this build has ${compiled.machines.compilerVersion} and cannot resume it`,
      );
    }
    const shared = {
      prices: { ...DEFAULT_PRICES, ...store.priceTable() },
      providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
    };
    // Calls the record lacks go out: every key the run can use is checked before anything is
    // reopened or recorded (a simulated run, or one continued with --simulate, needs none).
    const newCalls = {
      // As the plan below decides: a continued replay's new calls are simulated too.
      simulate:
        answersSimulated(run, flags.simulate === true) ||
        (run.status !== 'interrupted' && run.mode === 'replay'),
      cassetteMode: 'replay-then-live' as const,
    };
    refuseMissingKeys(compiled.plan, { providerOverrides: shared.providerOverrides, ...newCalls });
    // So are the MCP servers its tool calls the record lacks would reach.
    const mcpProfiles = runMcpProfiles(store, flags.mcp);
    refuseMissingMcp(compiled.plan, mcpProfiles, newCalls);
    const allowedOrigins = runOrigins(store, flags);
    refuseUnallowedHosts(compiled.plan, allowedOrigins);
    const go =
      run.status === 'interrupted'
        ? reopen(store, run, flags, compiled.plan)
        : continueEnded(store, run, flags, compiled);
    const { result, mode, calls } = await executeRun(
      compiled,
      store,
      flags,
      {
        runId: go.runId,
        ...shared,
        ...go.options,
        allowedOrigins,
        tools: runToolSources(mcpProfiles),
        ...(approved ? { toolApproval: { approved } } : {}),
      },
      go.prior,
    );
    printResult(result, mode, flags.json === true, compiled.params, { calls, db: flags.db });
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}

/** An interrupted run goes on under its own id, from its log as the crash left it (app/runs/reopen.ts). */
function reopen(
  store: RunStore,
  run: RunRecord,
  flags: ResumeFlags,
  plan: Extract<CompileResult, { ok: true }>['plan'],
): Resumption {
  const reopened = planReopen(store, run, { simulate: flags.simulate === true });
  const { humanAnswers } = readRunInputs(flags.input, plan, reopened.options.blobs!);
  store.reopenRun(run.id);
  process.stderr.write(
    `society: resuming run ${run.id} after event ${reopened.afterSeq}; ${reopened.answered} answered calls come from its record\n`,
  );
  return {
    runId: run.id,
    prior: [],
    options: { ...reopened.options, humanAnswers, simulate: reopened.simulated },
  };
}

/**
 * A failed or cancelled run stays as it ended; a new run, recorded as its fork at the failure,
 * goes on from its log without the failure (see app/runs/continue.ts).
 */
function continueEnded(
  store: RunStore,
  run: RunRecord,
  flags: ResumeFlags,
  compiled: Extract<CompileResult, { ok: true }>,
): Resumption {
  const plan = planContinuation(store, run, compiled, flags.simulate === true);
  const { humanAnswers } = readRunInputs(flags.input, compiled.plan, plan.options.blobs!);
  const runId = newRunId();
  store.createRun({ id: runId, ...plan.record });
  process.stderr.write(
    `society: run ${runId} continues ${run.status} run ${run.id}; ${plan.answered} answered call${plan.answered === 1 ? '' : 's'} come from its record, the rest ${plan.simulated ? 'are simulated' : 'are sent'}\n`,
  );
  return {
    runId,
    prior: plan.kept,
    options: { ...plan.options, humanAnswers, simulate: plan.simulated },
  };
}
