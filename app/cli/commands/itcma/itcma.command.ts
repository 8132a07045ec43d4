/** `society itcma eval` (ITCMA-S's ablation, rated by people): arguments, options and help. */
import type { Command } from 'commander';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { budgetOptions } from '../../budget-options.ts';
import { collect, evalRunOptions } from '../../options.ts';
import type { ItcmaEvalFlags } from './eval.ts';
import type { RatingImportFlags, RatingSheetFlags } from './rating-sheet.ts';

/** `society itcma` and its `eval` subcommand. */
export function register(program: Command): void {
  const itcma = program
    .command('itcma')
    .description("ITCMA-S's experiments: the five-architecture ablation, rated by people");
  const command = itcma
    .command('eval')
    .description(
      "run the Irollan Valley society under ITCMA-S's five architectures, one run per seed each, for people to rate on the paper's five 7-point scales",
    )
    .option('--seeds <N>', 'runs per architecture, seeds 1…N (default: 2)')
    .option('--steps <N>', "time steps per run (default: the document's, 75 in the template)")
    .option(
      '--architectures <LIST>',
      'some of full, filter-only, memory-only, driver-only, original (default: all five)',
    )
    .option('--set <NAME=VALUE>', 'another template parameter, e.g. threshold=2', collect, [])
    .option('--model <PROFILE=PROVIDER:MODEL>', "a model profile's model (repeatable)", collect, [])
    .option('--provider <NAME=URL>', 'add or redirect a provider (repeatable)', collect, [])
    .option('--document <FILE>', 'another sandbox with the same parameters (default: the template)')
    .option('--concurrency <K>', 'runs at once (default: 2)')
    .option('--retry-failed', 'run items that failed before again')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--json', 'print one JSON object: the eval summary with its ratings')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(budgetOptions(command)).action(async (flags: ItcmaEvalFlags) => {
    process.exitCode = await (await import('./eval.ts')).itcmaEvalCommand(flags);
  });
  itcma
    .command('rating-sheet')
    .description(
      "write each agent's trajectory of an eval's runs under a random code, with the architecture hidden, for people to rate; the key goes to a separate file",
    )
    .argument('<eval>', 'the eval (`society itcma eval` printed its id)')
    .requiredOption('--out <DIR>', "the raters' folder (new or empty)")
    .option('--key <FILE>', 'where the key goes (default: DIR.key.json, beside the folder)')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, flags: RatingSheetFlags) =>
      (await import('./rating-sheet.ts')).ratingSheetCommand(id, flags),
    );
  itcma
    .command('rating-import')
    .description("store a filled-in ratings.csv of a rating sheet as ratings of each code's agent")
    .argument('<key>', 'the key file `rating-sheet` wrote')
    .argument('<ratings>', "the sheet's ratings.csv, filled in")
    .option('--rater <NAME>', 'who rated (default: SOCIETY_RATER, else your login name)')
    .option('--db <FILE>', 'the run store')
    .action(async (key: string, ratings: string, flags: RatingImportFlags) =>
      (await import('./rating-sheet.ts')).ratingImportCommand(key, ratings, flags),
    );
}
