/** `society cuisineworld` (levels, sweep): arguments, options and help; the code loads when one runs. */
import type { Command } from 'commander';
import { budgetOptions } from '../../budget-options.ts';
import { collect, evalRunOptions } from '../../options.ts';
import type { SweepFlags } from './sweep.ts';

/** Adds `society cuisineworld` and its subcommands to the program. */
export function register(program: Command): void {
  const cw = program
    .command('cuisineworld')
    .description("MindAgent's CuisineWorld: levels, and sweeps scored by the collaboration score");
  cw.command('levels')
    .description('list the levels and flag dishes a kitchen cannot make')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) =>
      (await import('./levels.ts')).levelsCommand(flags),
    );
  const sweep = cw
    .command('sweep')
    .description(
      'play a level × agents × order-frequency grid with a dispatcher, store it as an eval, and print the CoS table',
    )
    .argument(
      '[file]',
      'a dispatcher document, e.g. templates/cuisineworld-dispatcher-2.society.json (default: a graph built from --controller)',
    )
    .option(
      '--levels <LIST>',
      "levels, e.g. 0,3 or level_0,level_3 (default: the document's, else 0,3)",
    )
    .option('--agents <LIST>', "agent counts (default: the document's, else 2)")
    .option('--alphas <LIST>', 'order-frequency factors (default: τ1…τ5 = 1,1.5,2,2.5,3)')
    .option('--episodes <N>', 'episodes per cell (the paper: 3)', '3')
    .option('--steps <N>', 'steps per episode (the paper: 60)', '60')
    .option('--seed <S>', 'seed for order arrivals', '0')
    .option('--controller <C>', 'without a document: greedy (no model, the default) or model')
    .option(
      '--model <MODEL>',
      'with --controller model: PROVIDER:MODEL; with a document: PROFILE=PROVIDER:MODEL (repeatable)',
      collect,
      [],
    )
    .option('--behaviour <B>', 'without a document: feedback (paper, the default) or retry')
    .option(
      '--runner <R>',
      "how turns count: ours (the default) or paper (MindAgent's: no game step on a turn with no readable command, at most one expiry counted per step)",
    )
    .option('--no-feedback', 'Table 8: never tell the dispatcher why commands were refused')
    .option('--no-hints', "Table 8: leave the environment's hints out of the prompt")
    .option('--demo-steps <N>', 'Table 8: steps in the worked demonstration (the paper: 2)')
    .option('--demo-agents <N>', 'Table 9: agents in the demonstration, whatever the kitchen has')
    .option('--set <NAME=VALUE>', 'a template parameter of the document (repeatable)', collect, [])
    .option('--simulate', 'answer model calls with the simulated provider')
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider (append ,key=ENV_VAR)',
      collect,
      [],
    )
    .option('--concurrency <K>', 'episodes at once (default: 4)')
    .option('--json', 'print JSON: the eval summary, the grid and the order counts')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(budgetOptions(sweep)).action(
    async (file: string | undefined, flags: SweepFlags) => {
      process.exitCode = await (await import('./sweep.ts')).sweepCommand(file, flags);
    },
  );
}
