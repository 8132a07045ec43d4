/**
 * `society eval`, `society evals`, `society eval-show`, `society rate` and `society ratings`: their
 * arguments, options and help; their code loads only when one runs.
 */
import type { Command } from 'commander';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { budgetOptions } from '../../budget-options.ts';
import { collect, evalRunOptions } from '../../options.ts';
import type { EvalFlags } from './eval.ts';
import type { RateFlags } from './rate.ts';

/** Adds `society eval`, `evals`, `eval-show`, `rate` and `ratings` to the program. */
export function register(program: Command): void {
  const evalCommand = program
    .command('eval')
    .description(
      'run a society over a dataset, score each answer, and print a table per variant (the same command again resumes)',
    )
    .argument('<file>', 'a *.society.json document')
    .requiredOption(
      '--data <DATA>',
      'a .jsonl or .csv file, or a .txt of _!_-separated multiple-choice questions',
    )
    .option(
      '--map <INPUT=FIELD>',
      "an input's value from a field of each row; INPUT=@FIELD reads the file whose path the field holds (relative to the data file, inside its folder). Unmapped inputs use the document's examples",
      collect,
      [],
    )
    .option(
      '--files <DIR>',
      "read INPUT=@FIELD files inside DIR instead of the data file's folder (never outside it)",
    )
    .option('--expect <FIELD>', 'the field holding the right answer')
    .option('--output <NAME>', "the document's output to score (default: its first)")
    .option(
      '--scorer <NAME>',
      "exact, choice, contains, number, f1, rougeL, cos, or a model scorer: clip, bertscore, vit-distance, text-cosine, image-cosine (the metric node's kinds) (default: exact)",
    )
    .option(
      '--scorer-graph <DOC>',
      'a society document given prediction and reference that outputs score',
    )
    .option('--tolerance <X>', 'for --scorer number: the largest difference still right')
    .option(
      '--variant <NAME=OPTIONS>',
      'a named set of run options, e.g. small="--model agent=openai:gpt-4o-mini --set rounds=2" (also --provider, --document FILE); repeatable',
      collect,
      [],
    )
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider for every variant, e.g. local=http://localhost:8000/v1 (append ,key=ENV_VAR)',
      collect,
      [],
    )
    .option(
      '--mcp <NAME=URL>',
      'an MCP server (Streamable HTTP) for the runs in this process, added or in place of your profile NAME (repeatable)',
      collect,
      [],
    )
    .option(
      '--approve-tools <LIST>',
      'for the runs in this process: run these tools without asking, though their policy is ask (NAME/TOOL,…, NAME/*, all)',
    )
    .option('--limit <N>', 'only the first N rows')
    .option('--concurrency <K>', 'runs at once (default: 4; with --queue, set on each worker)')
    .option('--budget <USD>', 'start no run once this much has been spent')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--replay <CASSETTE>', 'answer every model call from a cassette')
    .option('--retry-failed', 'run again the items that failed when the eval last ran')
    .option(
      '--rubric <NAME|FILE.json>',
      'scales people rate the items on with society rate or in the Evals view: itcma (ITCMA-S, five 7-point scales) or a rubric file; not part of the eval id, so adding it reopens the eval',
    )
    .option(
      '--baselines',
      "add control arms at the society's mean budget per item: one call of its strongest member, self-consistency, and its members' vote without discussion",
    )
    .option('--baselines-budget <tokens|usd>', 'what the arms hold equal (default: tokens)')
    .option(
      '--baseline-model <PROFILE>',
      "the member the arms ask (default: the society's member whose model costs most per token)",
    )
    .option(
      '--baselines-dir <DIR>',
      "where the arms' documents are written (default: society-baselines/NAME)",
    )
    .option('--json', 'print one JSON object: evalId, status, items, variants')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(budgetOptions(evalCommand)).action(async (file: string, flags: EvalFlags) => {
    process.exitCode = await (await import('./eval.ts')).evalCommand(file, flags);
  });

  program
    .command('evals')
    .description('list evals, newest first')
    .option('-n, --limit <N>', 'how many', '20')
    .option('--json', 'print the tables as a JSON array')
    .option('--db <FILE>', 'the run store')
    .action(async (flags: { limit?: string; json?: boolean; db?: string }) =>
      (await import('./show.ts')).evalsCommand(flags),
    );

  program
    .command('eval-show')
    .description("print an eval's table again; --items adds each item's score and run")
    .argument('<id>', 'an eval id or a unique prefix of one')
    .option('--items', 'each item × variant: score, status, run id')
    .option('--json', 'print the table as JSON')
    .option('--report <FILE.html>', 'write the eval as one self-contained HTML page')
    .option('--db <FILE>', 'the run store')
    .action(
      async (
        id: string,
        flags: { items?: boolean; json?: boolean; db?: string; report?: string },
      ) => (await import('./show.ts')).evalShowCommand(id, flags),
    );

  program
    .command('rate')
    .description(
      "rate a run (an eval's item) by hand on its rubric's scales; rating a scale again replaces your score",
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '--scale <ID=SCORE>',
      'a score on one scale, e.g. personification=6 (repeatable)',
      collect,
      [],
    )
    .option(
      '--agent <NAME>',
      "rate one agent of the run (its trajectory, as ITCMA-S's raters did) instead of the whole run",
    )
    .option('--rater <NAME>', 'who rates (default: SOCIETY_RATER, else your login name)')
    .option('--note <TEXT>', 'a remark kept with these scores')
    .option(
      '--rubric <NAME|FILE.json>',
      "the scales, for a run whose eval has no rubric (default: the run's eval's rubric)",
    )
    .option('--clear', "remove the rater's ratings of this run (of one agent, with --agent)")
    .option('--json', "print the run's ratings as JSON")
    .option('--db <FILE>', 'the run store')
    .action(async (run: string, flags: RateFlags) =>
      (await import('./rate.ts')).rateCommand(run, flags),
    );

  program
    .command('ratings')
    .description('print the ratings people gave a run, or every item of an eval')
    .argument('<id>', 'a run id or an eval id (or a unique prefix of one)')
    .option('--json', 'print the rubric and every rating as JSON')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, flags: { json?: boolean; db?: string }) =>
      (await import('./rate.ts')).ratingsCommand(id, flags),
    );
}
