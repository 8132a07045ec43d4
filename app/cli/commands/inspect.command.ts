/** `society inspect`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../options.ts';

/** Adds `society inspect` to the program. */
export function register(program: Command): void {
  program
    .command('inspect')
    .description('print the compiled XState machine configs as JSON')
    .argument('<file>', 'a *.society.json document')
    .option(
      '--set <NAME=VALUE>',
      'a template parameter of the document, e.g. rounds=5 (repeatable; see society params FILE)',
      collect,
      [],
    )
    .action(async (file: string, flags: { set: string[] }) =>
      (await import('./inspect.ts')).inspectCommand(file, flags),
    );
}
