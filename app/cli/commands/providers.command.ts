/** `society providers`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import type { ProvidersFlags } from './providers.ts';

/** Adds `society providers` to the program. */
export function register(program: Command): void {
  program
    .command('providers')
    .description(
      'list provider profiles, or add one (a base URL and the variable holding its key; never a key)',
    )
    .option('--add <NAME=URL>', 'add or change an OpenAI-compatible provider')
    .option('--kind <KIND>', 'with --add: openai-compatible (default) or huggingface (experts)')
    .option('--key-env <VAR>', 'with --add: the environment variable that holds its key')
    .option('--concurrency <N>', 'with --add: calls at once')
    .option('--remove <NAME>', 'forget a provider you added')
    .option('--db <FILE>', 'the run store')
    .action(async (flags: ProvidersFlags) =>
      (await import('./providers.ts')).providersCommand(flags),
    );
}
