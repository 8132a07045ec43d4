/**
 * `society world`: check a text-world file and look at a world the way its agents see it. The
 * arguments, options and help; the code is imported only when a command runs.
 */
import type { Command } from 'commander';
import type { ShowWorldFlags } from './show.ts';

/** Adds `society world check` and `society world show` to the program. */
export function register(program: Command): void {
  const world = program
    .command('world')
    .description('text worlds (areas, furniture, items, agents): check a world file, show a world');
  world
    .command('check')
    .description('check a world file; exit 0 with a summary, 2 with one line per problem')
    .argument('<file>', 'a *.world.json file (docs/textworld.md)')
    .action(async (file: string) => (await import('./check.ts')).checkWorldCommand(file));
  world
    .command('show')
    .description("print each agent's observation and the actions it can take at the start")
    .argument('<world>', 'a *.world.json file, or a built-in world: irollan-valley')
    .option('--agent <ID>', 'only this agent')
    .option('--json', 'print JSON: per agent, its observation as data and as text, and its actions')
    .action(async (name: string, flags: ShowWorldFlags) =>
      (await import('./show.ts')).showWorldCommand(name, flags),
    );
}
