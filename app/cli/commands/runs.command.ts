/** `society runs`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';

/** Adds `society runs` to the program. */
export function register(program: Command): void {
  program
    .command('runs')
    .description('list recorded runs, newest first')
    .option('-n, --limit <N>', 'how many', '20')
    .option('--db <FILE>', 'the run store')
    .option(
      '--json',
      'print one JSON array: id, status, mode, document, startedAt, endedAt, calls, tokens, costUsd, parentRunId',
    )
    .action(async (flags: { limit: string; db?: string; json?: boolean }) =>
      (await import('./runs.ts')).runsCommand(flags),
    );
}
