/** `society prices`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../options.ts';
import type { PricesFlags } from './prices.ts';

/** Adds `society prices` to the program. */
export function register(program: Command): void {
  program
    .command('prices')
    .description('show or edit the price table used for costs, estimates and money budgets')
    .option(
      '--set <MODEL=IN/OUT>',
      'US dollars per million input/output tokens, e.g. gpt-4o-mini=0.15/0.60',
      collect,
      [],
    )
    .option('--unset <MODEL>', 'go back to the built-in price (or none)', collect, [])
    .option('--db <FILE>', 'the run store')
    .action(async (flags: PricesFlags) => (await import('./prices.ts')).pricesCommand(flags));
}
