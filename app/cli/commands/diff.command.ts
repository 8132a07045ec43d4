/** `society diff`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';

/** Adds `society diff` to the program. */
export function register(program: Command): void {
  program
    .command('diff')
    .description('compare two runs: outputs, messages, votes and usage')
    .argument('<a>', 'a run id or prefix')
    .argument('<b>', 'another run id or prefix')
    .option('--db <FILE>', 'the run store')
    .action(async (a: string, b: string, flags: { db?: string }) =>
      (await import('./diff.ts')).diffCommand(a, b, flags),
    );
}
