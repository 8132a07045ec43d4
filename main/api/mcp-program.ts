/**
 * Adding an MCP server that runs a program, from the page: the one place a page's request can
 * lead the machine to start a program of its choosing, so it is a person's decision, made where
 * no page can make it for them. The host hands the handlers its own `confirm` (the desktop app's
 * native dialog, main/electron/main.ts); the question shows the exact command line and where
 * each variable is read from, and only a yes saves the profile. A host without one (the studio,
 * whose page anything holding its token could drive) refuses with the terminal command.
 */
import { quoteCommandLine } from '../../app/tools/command-line.ts';
import { listMcpProfiles, parseMcpProfile, saveMcpProfile } from '../../app/tools/profiles.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/** What the page sends: the program, its arguments, its variables (names only, never values). */
export interface McpProgramRequest {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; env: string }>;
}

/** The question the person is asked before a program is added. */
export function programQuestion(request: McpProgramRequest): string {
  const line = quoteCommandLine([request.command, ...request.args]);
  const reads = request.env.map((v) => `${v.name} from $${v.env}`);
  return [
    `Society Studio will run this program on your computer when a run uses server ${request.name}:`,
    '',
    line,
    '',
    reads.length
      ? `It is given only these of your variables: ${reads.join(', ')}.`
      : 'It is given none of your variables.',
    'Add it only if you trust this program.',
  ].join('\n');
}

/**
 * Saves the stdio profile `request` describes once the person says yes; throws an ApiError,
 * saving nothing, when the host cannot ask, the profile is not valid, or the person declines.
 * Policies already set for a server of that name are kept, as `society mcp --add` keeps them.
 */
export async function saveMcpProgram(
  ctx: Pick<ApiContext, 'store' | 'confirm' | 'secretsChanged'>,
  request: McpProgramRequest,
): Promise<void> {
  const { store, confirm } = ctx;
  if (!confirm) {
    throw new ApiError(
      `a server that runs a program is added from a terminal or the desktop app, not from this page: society mcp --add ${request.name} --command "CMD ARGS"`,
    );
  }
  const before = listMcpProfiles(store).find((p) => p.name === request.name);
  let profile: ReturnType<typeof parseMcpProfile>;
  try {
    profile = parseMcpProfile({
      name: request.name,
      transport: 'stdio',
      command: request.command,
      args: request.args,
      env: request.env,
      ...(before?.policy ? { policy: before.policy } : {}),
      ...(before?.tools ? { tools: before.tools } : {}),
    });
  } catch (error) {
    throw new ApiError(`MCP server "${request.name}": ${(error as Error).message}`);
  }
  // Checked before asking, so the question is never about something that would not be saved.
  if (!(await confirm(programQuestion(request)))) {
    throw new ApiError(`MCP server "${request.name}" was not added: you did not confirm it`);
  }
  saveMcpProfile(store, profile);
  ctx.secretsChanged();
}
