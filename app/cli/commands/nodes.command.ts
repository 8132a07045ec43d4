/** `society nodes`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import type { NodesFlags } from './nodes.ts';

/** Adds `society nodes` to the program. */
export function register(program: Command): void {
  program
    .command('nodes')
    .description('list the node types with their ports (name, modality, direction) and fields')
    .argument('[type]', 'only this node type')
    .option('--json', 'print JSON: every port and field, with types and defaults')
    .option('--markdown', "print the README's node-type table")
    .action(async (type: string | undefined, flags: NodesFlags) =>
      (await import('./nodes.ts')).nodesCommand(type, flags),
    );
}
