/**
 * The papers' tables as commands over the eval machinery: `society openagi eval` (OpenAGI's
 * Table 1), `society nlsom eval` (NLSOM's A-OKVQA accuracy) and `society itcma eval` (ITCMA-S's
 * ablation, rated by people). Their arguments, options and
 * help; the code is imported only when a command runs.
 */
import type { Command } from 'commander';
import { OPENAGI_CATEGORIES } from '../experts/openagi.ts';
import { SIMULATED_LABEL } from '../schema/simulated.ts';
import { budgetOptions } from './budget-options.ts';
import type { ItcmaEvalFlags } from './commands/itcma/eval.ts';
import type { NlsomEvalFlags } from './commands/nlsom/eval.ts';
import type { OpenAgiEvalFlags } from './commands/openagi/eval.ts';
import { evalRunOptions } from './eval-program.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `society openagi eval`, under the `openagi` command. */
export function addOpenAgiEval(openagi: Command): void {
  const command = openagi
    .command('eval')
    .description(
      "run each task's scored graph as an eval item and print OpenAGI's Table 1 (CLIP, BERT, ViT by category, overall)",
    )
    .argument(
      '[tasks]',
      "OpenAGI's task_description.txt (default: six sample tasks built in, one per category)",
    )
    .option(
      '--model <PROFILE>',
      'the planner model, PROVIDER:MODEL or NAME=PROVIDER:MODEL (default: the rule planner)',
    )
    .option('--category <CAT>', `only one category: ${OPENAGI_CATEGORIES.join(', ')}`)
    .option('--ids <IDS>', 'only these task ids, e.g. 0,5,7')
    .option('--limit <N>', 'only the first N tasks (after --category and --ids)')
    .option('--concurrency <K>', 'runs at once (default: 4)')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--json', 'print one JSON object: the eval summary and the table')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(command).action(async (tasks: string | undefined, flags: OpenAgiEvalFlags) => {
    process.exitCode = await (await import('./commands/openagi/eval.ts')).openAgiEvalCommand(
      tasks,
      flags,
    );
  });
}

/** `society nlsom` and its `eval` subcommand. */
export function addNlsomCommands(program: Command): void {
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
    process.exitCode = await (await import('./commands/nlsom/eval.ts')).nlsomEvalCommand(
      data,
      flags,
    );
  });
}

/** `society itcma` and its `eval` subcommand. */
export function addItcmaCommands(program: Command): void {
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
    process.exitCode = await (await import('./commands/itcma/eval.ts')).itcmaEvalCommand(flags);
  });
}
