/**
 * The command line's side of MCP servers in a run: the user's profiles with `--mcp NAME=URL`
 * laid over them, as the tool sources a run is handed, and the refusal of a run whose document
 * names a server the user lacks (exit 2, before anything is recorded or sent).
 */
import type { CassetteMode } from '../providers/cassette.ts';
import type { ToolSources } from '../providers/tools.ts';
import type { RunStore } from '../store/index.ts';
import { listMcpProfiles, type McpProfile } from '../tools/profiles.ts';
import {
  mcpOverrides,
  mcpRefusalLines,
  mcpToolSources,
  type NamesToolSources,
  withOverrides,
} from '../tools/sources.ts';
import { EXIT, Exit, UsageError } from './errors.ts';
import { processRedactor } from './redaction.ts';

/** The `--mcp NAME=URL` flags as profiles (HTTP only); a bad one is a usage error. */
export function mcpOverrideProfiles(flags: readonly string[] = []): McpProfile[] {
  try {
    return mcpOverrides(flags);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * `--approve-tools NAME/TOOL,…` as the names a run approves (`NAME/*`: every tool of a server;
 * `all`: every tool); a malformed name is a usage error.
 */
export function approvedToolsFlag(flag: string | undefined): string[] | undefined {
  if (flag === undefined) return undefined;
  const names = flag
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names) {
    if (name !== 'all' && !/^[A-Za-z][A-Za-z0-9_-]{0,39}\/([A-Za-z0-9_.-]{1,64}|\*)$/.test(name))
      throw new UsageError(
        `--approve-tools: "${name}" is not NAME/TOOL (a server's profile and one of its tools), NAME/* or all`,
      );
  }
  if (names.length === 0) throw new UsageError('--approve-tools needs NAME/TOOL,… or all');
  return names;
}

/** The profiles a run may open: the store's, then the `--mcp` flags' (HTTP only) by name. */
export function runMcpProfiles(store: RunStore, flags: readonly string[] = []): McpProfile[] {
  return withOverrides(listMcpProfiles(store), mcpOverrideProfiles(flags));
}

/**
 * What opens a run's MCP servers: nothing starts until the run asks, and every value read for a
 * server's environment or headers is learned by the process's redactor first.
 */
export function runToolSources(profiles: readonly McpProfile[]): ToolSources {
  return mcpToolSources({ profiles, redactor: processRedactor });
}

/** How a command other than `society run` words the MCP refusal, in its own flags. */
export interface McpAdvice {
  /** What it offers besides adding the server (`run with --simulate or --replay CASSETTE`). */
  alternatives: string;
  /** False for a command without `--mcp NAME=URL`: the refusal does not suggest it. */
  oneRunFlag: boolean;
}

const RUN_MCP_ADVICE: McpAdvice = {
  alternatives: 'run with --simulate or --replay CASSETTE',
  oneRunFlag: true,
};

/**
 * Ends the command with exit 2 when a live run of `plan` would open an MCP server the user has
 * no profile for, or whose variables are not set. A simulated run or a strict replay calls no
 * server, so it needs none. `advice` words it for the command's own flags.
 */
export function refuseMissingMcp(
  plan: NamesToolSources,
  profiles: readonly McpProfile[],
  mode: { simulate?: boolean; cassetteMode?: CassetteMode },
  advice: McpAdvice = RUN_MCP_ADVICE,
): void {
  if (mode.simulate || mode.cassetteMode === 'replay') return;
  const lines = mcpRefusalLines(plan, profiles, process.env, advice.oneRunFlag);
  if (lines.length === 0) return;
  throw new Exit(
    EXIT.invalid,
    [...lines, `society: nothing was sent. Add the server, or ${advice.alternatives}`].join('\n'),
  );
}

/**
 * The same refusal for an eval run in this process: every distinct document its live jobs run,
 * checked before the first run, each missing server named once.
 */
export async function refuseMissingEvalMcp(
  jobs: readonly { job: { documentText: string; mode: string } }[],
  profiles: readonly McpProfile[],
  compile: (document: string) => Promise<NamesToolSources | undefined>,
): Promise<void> {
  const lines = new Set<string>();
  for (const text of new Set(
    jobs.filter(({ job }) => job.mode === 'live').map(({ job }) => job.documentText),
  )) {
    const plan = await compile(text);
    if (plan) for (const line of mcpRefusalLines(plan, profiles)) lines.add(line);
  }
  if (lines.size === 0) return;
  throw new Exit(
    EXIT.invalid,
    [...lines, 'society: nothing was sent. Add the server, or run with --simulate'].join('\n'),
  );
}
