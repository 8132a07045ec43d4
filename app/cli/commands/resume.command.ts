/** `society resume`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect, executionOptions } from '../options.ts';
import type { ResumeFlags } from './resume.ts';

/** Adds `society resume` to the program. */
export function register(program: Command): void {
  executionOptions(program.command('resume'))
    .description(
      'finish an interrupted run, or continue a failed or cancelled one once the cause is fixed; calls it already made are not paid again',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '-i, --input <NAME=VALUE>',
      'an answer for a human node the run has not reached yet',
      collect,
      [],
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
    .action(async (id: string, flags: ResumeFlags) => {
      process.exitCode = await (await import('./resume.ts')).resumeCommand(id, flags);
    });
}
