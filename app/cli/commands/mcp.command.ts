/** `society mcp` and `society mcp tools`: their arguments, options and help; code loads on use. */
import type { Command } from 'commander';
import { collect } from '../options.ts';
import type { McpFlags, McpToolsFlags } from './mcp.ts';

/** Adds `society mcp` (and `society mcp tools NAME`) to the program. */
export function register(program: Command): void {
  const mcp = program
    .command('mcp')
    .description(
      'list MCP server profiles, or add one (a URL, or a program to start; keys by variable name, never a key)',
    )
    .option(
      '--add <NAME[=URL]>',
      'add or change a server: NAME=URL (Streamable HTTP), or NAME with --command',
    )
    .option(
      '--command <"CMD ARGS…">',
      'with --add NAME: the program that serves it over stdio (from a terminal, or with --yes)',
    )
    .option(
      '--header <NAME=ENV_VAR>',
      'with --add NAME=URL: a header whose value is read from ENV_VAR when a run connects (repeatable)',
      collect,
      [],
    )
    .option(
      '--env <NAME=ENV_VAR>',
      "with --command: the server's variable NAME, read from ENV_VAR when a run connects (repeatable)",
      collect,
      [],
    )
    .option(
      '--yes',
      'add a --command server without a terminal to confirm at (it will run that program)',
    )
    .option(
      '--policy <NAME[/TOOL]=POLICY>',
      "whether a server's tools (or one tool) run when a model calls them: allow, ask (the run waits for you), deny (never offered), default (forget the setting) (repeatable)",
      collect,
      [],
    )
    .option('--remove <NAME>', 'forget a server you added')
    .option('--db <FILE>', 'the run store')
    .action(async (flags: McpFlags) => (await import('./mcp.ts')).mcpCommand(flags));
  mcp
    .command('tools')
    .description('connect to a server and list its tools: name, description, hints')
    .argument('<name>', 'a server profile (see society mcp)')
    .option('--mcp <NAME=URL>', 'a server for this command only (HTTP)', collect, [])
    .option('--json', 'print one JSON array of the tools')
    // `--db` is `society mcp`'s own option, read wherever it is given.
    .action(async (name: string, _flags: McpToolsFlags, command: Command) => {
      const flags = command.optsWithGlobals<McpToolsFlags>();
      process.exitCode = await (await import('./mcp.ts')).mcpToolsCommand(name, flags);
    });
}
