/**
 * `society fork RUN --edit INSTANCE=TEXT` / `--at SEQ`: a new run that keeps the parent's
 * events before the fork point, answers every unchanged call from the parent's record, and
 * goes live only where the edit changes what is asked.
 */
import { compileGraph } from '../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../costs/prices.ts';
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import { planFork } from '../../runs/fork.ts';
import { newRunId } from '../../store/index.ts';
import { splitAssignment } from '../assignment.ts';
import { problemsExit } from '../document-file.ts';
import { EXIT, UsageError } from '../errors.ts';
import { type DisplayFlags, executeRun, printResult } from '../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../hosts.ts';
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

export interface ForkFlags extends DisplayFlags, AllowHostFlags {
  at?: string;
  edit: string[];
  db?: string;
  simulate?: boolean;
  provider: string[];
  /** `--mcp NAME=URL`: the MCP server (HTTP) a run made with `run --mcp` reaches again. */
  mcp?: string[];
  /** `--approve-tools NAME/TOOL,…`: tools whose policy is ask run without asking. */
  approveTools?: string;
  json?: boolean;
}

/** Forks run `id` as the flags say; resolves to the exit code. */
export async function forkCommand(id: string, flags: ForkFlags): Promise<number> {
  mcpOverrideProfiles(flags.mcp); // a bad --mcp is a bad argument, found before the store is read
  const approved = approvedToolsFlag(flags.approveTools);
  const store = openStore(flags.db);
  try {
    const parent = findRun(store, id);
    const edits: Record<string, string> = {};
    for (const assignment of flags.edit) {
      const [instance, text] = splitAssignment(assignment, '--edit');
      edits[instance] = text;
    }
    const at = flags.at === undefined ? undefined : Number(flags.at);
    if (at !== undefined && !Number.isInteger(at)) {
      throw new UsageError(
        `--at must be an event number (see \`society show ${parent.id} --json\`)`,
      );
    }
    if (at === undefined && flags.edit.length === 0) {
      throw new UsageError('say where to fork: --at SEQ, or --edit INSTANCE=TEXT');
    }
    const compiled = await compileGraph(parent.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${parent.id}`, compiled.problems);
    const plan = planFork(store, parent, compiled, {
      edits,
      ...(at === undefined ? {} : { at }),
      simulate: flags.simulate === true,
    });
    // A fork's changed calls go live: every key the run can use is checked before it is recorded.
    const newCalls = { simulate: plan.simulated, cassetteMode: 'replay-then-live' as const };
    refuseMissingKeys(compiled.plan, {
      providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
      ...newCalls,
    });
    // So are the MCP servers its tool calls the record lacks would reach.
    const mcpProfiles = runMcpProfiles(store, flags.mcp);
    refuseMissingMcp(compiled.plan, mcpProfiles, newCalls);
    const allowedOrigins = runOrigins(store, flags);
    refuseUnallowedHosts(compiled.plan, allowedOrigins);
    const runId = newRunId();
    store.createRun({ id: runId, ...plan.record });
    process.stderr.write(`society: run ${runId} forks ${parent.id} after event ${plan.at - 1}\n`);
    const { result, mode, calls } = await executeRun(
      compiled,
      store,
      flags,
      {
        runId,
        ...plan.options,
        prices: { ...DEFAULT_PRICES, ...store.priceTable() },
        simulate: plan.simulated,
        providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
        allowedOrigins,
        tools: runToolSources(mcpProfiles),
        ...(approved ? { toolApproval: { approved } } : {}),
      },
      plan.kept,
    );
    printResult(result, mode, flags.json === true, compiled.params, { calls, db: flags.db });
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}
