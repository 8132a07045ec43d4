/** `society validate`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../options.ts';

/** Adds `society validate` to the program. */
export function register(program: Command): void {
  program
    .command('validate')
    .description('check society documents; exit 0 if valid, 2 with one line per problem')
    .argument('<files...>', '*.society.json documents')
    .option(
      '--set <NAME=VALUE>',
      'a template parameter of the document, e.g. rounds=5 (repeatable; see society params FILE)',
      collect,
      [],
    )
    .action(async (files: string[], flags: { set: string[] }) =>
      (await import('./validate.ts')).validateCommand(files, flags),
    );
}
