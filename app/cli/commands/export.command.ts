/** `society export`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';

/** Adds `society export` to the program. */
export function register(program: Command): void {
  program
    .command('export')
    .description(
      'write a run as one self-contained JSON file (document, inputs, events, its calls)',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option('-o, --output <FILE>', 'where to write it (default: <run id>.run.json)')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, flags: { output?: string; db?: string }) =>
      (await import('./export.ts')).exportCommand(id, flags),
    );
}
