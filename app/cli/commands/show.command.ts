/** `society show`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import type { ShowFlags } from './show.ts';

/** Adds `society show` to the program. */
export function register(program: Command): void {
  program
    .command('show')
    .description('print a run: its transcript by round, votes, usage and outputs')
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '--json',
      'print the run record and its events as JSON (with --heatmap or --series: the analytics)',
    )
    .option(
      '--heatmap',
      'print who interacted with whom: an initiator × receiver table and a summary',
    )
    .option('--kind <KIND>', 'the kind of interaction the heat map counts (default: chat)')
    .option('--series', "print each series' last values and range per key")
    .option('--export <FILE>', 'write the heat map: .csv (a matrix), .svg or .png (an image)')
    .option('--export-series <FILE.csv>', 'write every series point as CSV: series,x,key,value')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, flags: ShowFlags) =>
      (await import('./show.ts')).showCommand(id, flags),
    );
}
