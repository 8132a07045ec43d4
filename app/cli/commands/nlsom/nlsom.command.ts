/** `society nlsom eval` (NLSOM's A-OKVQA accuracy): arguments, options and help. */
import type { Command } from 'commander';
import { registerTablePresenter } from '../../../eval/table-presenters.ts';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { budgetOptions } from '../../budget-options.ts';
import { collect, evalRunOptions } from '../../options.ts';
import type { NlsomEvalFlags } from './eval.ts';

/** `society nlsom` and its `eval` subcommand. */
export function register(program: Command): void {
  registerTablePresenter('nlsom-vqa', async () => (await import('./table-presenter.ts')).present);
  const nlsom = program
    .command('nlsom')
    .description("NLSOM's experiments: the VQA society's accuracy over an A-OKVQA file");
  const command = nlsom
    .command('eval')
    .description(
      'run the NLSOM VQA society over A-OKVQA multiple-choice questions and print its accuracy with a 95% interval',
    )
    .argument(
      '<data>',
      "an A-OKVQA file in NLSOM's _!_ format (image_!_question_!_[options]_!_index)",
    )
    .option(
      '--images <DIR>',
      'the COCO photos, found by file name (default: the paths as written, relative to the data file)',
    )
    .option(
      '--require-images',
      "fail a question whose photo is missing (default: it runs with the template's example picture, reported apart)",
    )
    .option('--structure <S>', 'monarchy, democracy, or both: monarchy,democracy', 'monarchy')
    .option(
      '--set <NAME=VALUE>',
      'a template parameter, e.g. rounds=5 or rtk=true (see society params FILE)',
      collect,
      [],
    )
    .option('--model <PROFILE=PROVIDER:MODEL>', "a model profile's model (repeatable)", collect, [])
    .option('--provider <NAME=URL>', 'add or redirect a provider (repeatable)', collect, [])
    .option(
      '--document <FILE>',
      'another VQA society taking question and image (default: the template)',
    )
    .option('--limit <N>', 'only the first N questions')
    .option('--concurrency <K>', 'runs at once (default: 4)')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--json', 'print one JSON object: the eval summary, the images found and the accuracy')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(budgetOptions(command)).action(async (data: string, flags: NlsomEvalFlags) => {
    process.exitCode = await (await import('./eval.ts')).nlsomEvalCommand(data, flags);
  });
}
