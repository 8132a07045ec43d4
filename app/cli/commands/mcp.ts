/**
 * `society mcp`: lists MCP server profiles, after any `--add`, `--policy` or `--remove`; `society mcp tools
 * NAME` connects to one and lists its tools. A profile holds a URL or a program to start and the
 * variables its headers or environment are read from, never a value.
 */

import { splitCommandLine } from '../../tools/command-line.ts';
import { connectMcp } from '../../tools/mcp-source.ts';
import {
  describeMcpProfile,
  listMcpProfiles,
  type McpProfile,
  parseMcpProfile,
  removeMcpProfile,
  saveMcpProfile,
  setMcpPolicy,
} from '../../tools/profiles.ts';
import { mcpOverrides, missingProfileLine, withOverrides } from '../../tools/sources.ts';
import { splitAssignment } from '../assignment.ts';
import { EXIT, UsageError } from '../errors.ts';
import { processRedactor } from '../redaction.ts';
import { openStore } from '../run-store.ts';

export interface McpFlags {
  add?: string;
  command?: string;
  header: string[];
  env: string[];
  yes?: boolean;
  remove?: string;
  /** `--policy NAME[/TOOL]=allow|ask|deny|default`. */
  policy: string[];
  db?: string;
}

export interface McpToolsFlags {
  mcp: string[];
  json?: boolean;
  db?: string;
}

/** Adds or removes a profile as the flags say, then lists them all. */
export function mcpCommand(flags: McpFlags): void {
  const store = openStore(flags.db);
  try {
    if (flags.add) {
      const profile = profileFromFlags(flags);
      // Changing where a server is keeps what the user decided about its tools.
      const before = listMcpProfiles(store).find((p) => p.name === profile.name);
      if (before?.policy) profile.policy = before.policy;
      if (before?.tools) profile.tools = before.tools;
      try {
        saveMcpProfile(store, profile);
      } catch (error) {
        // The store refuses anything shaped like a key (a token in an argument or a URL).
        throw new UsageError(
          `--add ${profile.name}: ${(error as Error).message.replace(/\.? Keys live in .*$/, '')}; give a key by its variable: ${profile.transport === 'stdio' ? '--env NAME=ENV_VAR' : '--header NAME=ENV_VAR'}`,
        );
      }
    }
    for (const text of flags.policy ?? []) {
      const [target, value] = splitAssignment(text, '--policy');
      const slash = target.indexOf('/');
      const name = slash < 0 ? target : target.slice(0, slash);
      const tool = slash < 0 ? undefined : target.slice(slash + 1);
      if (!['allow', 'ask', 'deny', 'default'].includes(value) || tool === '') {
        throw new UsageError(
          `--policy ${text}: give NAME=POLICY or NAME/TOOL=POLICY, POLICY one of allow, ask, deny, default`,
        );
      }
      try {
        setMcpPolicy(
          store,
          name,
          tool,
          value === 'default' ? undefined : (value as 'allow' | 'ask' | 'deny'),
        );
      } catch (error) {
        throw new UsageError(`--policy ${text}: ${(error as Error).message}`);
      }
    }
    if (flags.remove && !removeMcpProfile(store, flags.remove)) {
      throw new UsageError(`no MCP server "${flags.remove}" was added`);
    }
    const profiles = listMcpProfiles(store);
    if (profiles.length === 0) {
      process.stdout.write(
        'no MCP servers: add one with society mcp --add NAME=URL, or --add NAME --command "CMD ARGS"\n',
      );
    }
    for (const p of profiles) process.stdout.write(`${describeMcpProfile(p)}\n`);
  } finally {
    store.close();
  }
}

/** The profile `--add` describes; a bad one is a usage error naming what is wrong. */
function profileFromFlags(flags: McpFlags): McpProfile {
  const add = flags.add!;
  const eq = add.indexOf('=');
  const name = eq < 0 ? add : add.slice(0, eq);
  const pairs = (list: string[], flag: string) =>
    list.map((text) => {
      const [pairName, env] = splitAssignment(text, flag);
      return { name: pairName, env };
    });
  let input: unknown;
  if (eq >= 0) {
    if (flags.command)
      throw new UsageError('--add NAME=URL takes no --command: give one or the other');
    if (flags.env.length)
      throw new UsageError('--env is for a --command server; an HTTP one takes --header');
    input = {
      name,
      transport: 'http',
      url: add.slice(eq + 1),
      headers: pairs(flags.header, '--header'),
    };
  } else {
    if (!flags.command) {
      throw new UsageError(
        `--add ${name}: give a URL (--add ${name}=URL) or a program (--command "CMD ARGS")`,
      );
    }
    if (flags.header.length)
      throw new UsageError('--header is for an HTTP server; a --command one takes --env');
    // Adding a program the studio or a script can later start is a person's decision.
    if (!process.stdin.isTTY && !flags.yes) {
      throw new UsageError(
        `--add ${name} --command: a server that runs a program is added only from a terminal; add --yes to confirm it here`,
      );
    }
    const [command, ...args] = commandWords(flags.command);
    input = { name, transport: 'stdio', command, args, env: pairs(flags.env, '--env') };
  }
  try {
    return parseMcpProfile(input);
  } catch (error) {
    throw new UsageError(`--add ${name}: ${(error as Error).message}`);
  }
}

/** `--command`'s words (app/tools/command-line.ts); a bad line is a usage error. */
function commandWords(text: string): string[] {
  try {
    return splitCommandLine(text);
  } catch (error) {
    throw new UsageError(`--command: ${(error as Error).message}`);
  }
}

/** Connects to the profile `name` names and prints its tools; resolves to the exit code. */
export async function mcpToolsCommand(name: string, flags: McpToolsFlags): Promise<number> {
  let overrides: McpProfile[];
  try {
    overrides = mcpOverrides(flags.mcp);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const store = openStore(flags.db);
  let profiles: McpProfile[];
  try {
    profiles = withOverrides(listMcpProfiles(store), overrides);
  } finally {
    store.close();
  }
  const profile = profiles.find((p) => p.name === name);
  if (!profile) throw new UsageError(missingProfileLine(name));
  const controller = new AbortController();
  let source: Awaited<ReturnType<typeof connectMcp>>;
  try {
    source = await connectMcp(profile, { signal: controller.signal, redactor: processRedactor });
  } catch (error) {
    process.stderr.write(`society: ${(error as Error).message}\n`);
    return EXIT.runFailed;
  }
  try {
    const tools = await source.list(controller.signal);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
      return EXIT.ok;
    }
    const width = Math.min(32, Math.max(4, ...tools.map((t) => t.name.length)));
    for (const tool of tools) {
      const hints = Object.entries(tool.hints ?? {})
        .filter(([, on]) => on)
        .map(([hint]) => hint);
      const description = (tool.description ?? '').split('\n')[0]!;
      process.stdout.write(
        `${tool.name.padEnd(width)}  ${description}${hints.length ? `  [${hints.join(', ')}]` : ''}\n`,
      );
    }
    process.stderr.write(`${tools.length} tool${tools.length === 1 ? '' : 's'} on ${source.id}\n`);
    return EXIT.ok;
  } catch (error) {
    process.stderr.write(`society: ${(error as Error).message}\n`);
    return EXIT.runFailed;
  } finally {
    await source.close();
  }
}
