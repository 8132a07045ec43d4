/** `society fork`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect, executionOptions } from '../options.ts';
import type { ForkFlags } from './fork.ts';

/** Adds `society fork` to the program. */
export function register(program: Command): void {
  executionOptions(program.command('fork'))
    .description(
      'run again from a point of an earlier run, optionally with an edited message; unchanged calls come from its record',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '--edit <INSTANCE=TEXT>',
      'what a node instance says instead, e.g. "member#1@r2=It is a square"',
      collect,
      [],
    )
    .option(
      '--at <SEQ>',
      "keep the parent's events before this one (default: where the first edited instance started)",
    )
    .option(
      '--mcp <NAME=URL>',
      'an MCP server (Streamable HTTP) for the calls its record lacks, added or in place of your profile NAME (repeatable)',
      collect,
      [],
    )
    .option(
      '--approve-tools <LIST>',
      'run these tools without asking, though their policy is ask: NAME/TOOL,… (NAME/* every tool of a server, all every tool)',
    )
    .action(async (id: string, flags: ForkFlags) => {
      process.exitCode = await (await import('./fork.ts')).forkCommand(id, flags);
    });
}
