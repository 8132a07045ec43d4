/** `society params`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';

/** Adds `society params` to the program. */
export function register(program: Command): void {
  program
    .command('params')
    .description("list a document's template parameters: name, type, default, what it takes")
    .argument('<file>', 'a *.society.json document')
    .option('--json', 'print the parameters as the document declares them')
    .action(async (file: string, flags: { json?: boolean }) =>
      (await import('./params.ts')).paramsCommand(file, flags),
    );
}
