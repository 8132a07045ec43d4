/**
 * `society openagi` (tasks, build, degrade, and eval: OpenAGI's Table 1): arguments, options and
 * help; the code loads only when a command runs.
 */
import type { Command } from 'commander';
import { OPENAGI_CATEGORIES } from '../../../experts/openagi.ts';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { collect, evalRunOptions } from '../../options.ts';
import type { BuildFlags } from './build.ts';
import type { DegradeFlags } from './degrade.ts';
import type { OpenAgiEvalFlags } from './eval.ts';

/** Adds `society openagi` and its subcommands to the program. */
export function register(program: Command): void {
  const openagi = program
    .command('openagi')
    .description(
      "OpenAGI's benchmark: list its tasks, build scored graphs, degrade inputs, print Table 1",
    );

  openagi
    .command('tasks')
    .description('read a task_description.txt and count its tasks by category')
    .argument('<file>', "OpenAGI's task_description.txt (one task per line)")
    .option('--json', 'print the counts, the unreadable lines and every task as JSON')
    .action(async (file: string, flags: { json?: boolean }) =>
      (await import('./tasks.ts')).tasksCommand(file, flags),
    );

  openagi
    .command('build')
    .description(
      'write one graph per task: inputs, a reference, a planner, its answer and a metric',
    )
    .argument('<file>', "OpenAGI's task_description.txt")
    .requiredOption('--out <DIR>', 'where to write <id>-<slug>.society.json files')
    .option(
      '--model <PROFILE>',
      'the planner model, PROVIDER:MODEL or NAME=PROVIDER:MODEL (default: the rule planner)',
    )
    .option('--category <CAT>', `only one category: ${OPENAGI_CATEGORIES.join(', ')}`)
    .option('--ids <IDS>', 'only these task ids, e.g. 0,5,7')
    .action(async (file: string, flags: BuildFlags) =>
      (await import('./build.ts')).buildCommand(file, flags),
    );

  openagi
    .command('degrade')
    .description('degrade an image as a benchmark input (offline, deterministic for a seed)')
    .argument('<image>', 'the clean image')
    .option(
      '--steps <LIST>',
      'degradations in order: low-resolution, noise, blur, grayscale (or noisy, blurry…); noise=30 sets a value',
    )
    .option('--from-task <N>', "take the steps from task N's description (needs --tasks)")
    .option('--tasks <FILE>', 'the task_description.txt for --from-task')
    .option('--seed <S>', 'the noise seed', '0')
    .option('--out <FILE.png>', 'where to write the PNG')
    .action(async (image: string, flags: DegradeFlags) =>
      (await import('./degrade.ts')).degradeCommand(image, flags),
    );

  addOpenAgiEval(openagi);
}

/** `society openagi eval`, under the `openagi` command. */
function addOpenAgiEval(openagi: Command): void {
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
    .option(
      '--data <DIR>',
      "OpenAGI's task folders (<id>/inputs/, <id>/outputs/; task_description.txt beside them): every sample is an item",
    )
    .option(
      '--split <NAME>',
      "with --data: paper (OpenAGI's published test tasks, the default), folder (every task folder in DIR) or all",
    )
    .option('--samples <N>', "with --data: only each task's first N samples")
    .option(
      '--planner <LIST>',
      'planner presets, one variant each: schema (default: JSON over the experts, 3 repairs), paper-zero-shot, few-shot',
    )
    .option(
      '--paper-column <NAME>',
      'the column of the paper\'s Table 1 printed beside ours, e.g. "GPT-3.5-turbo zero-shot" (default: from --model and --planner)',
    )
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider, e.g. openai=http://localhost:8000/v1 (append ,key=ENV_VAR, ,kind=huggingface); repeatable',
      collect,
      [],
    )
    .option('--concurrency <K>', 'runs at once (default: 4)')
    .option('--simulate', `use the simulated provider (answers labelled "${SIMULATED_LABEL}")`)
    .option('--json', 'print one JSON object: the eval summary and the table')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
  evalRunOptions(command).action(async (tasks: string | undefined, flags: OpenAgiEvalFlags) => {
    process.exitCode = await (await import('./eval.ts')).openAgiEvalCommand(tasks, flags);
  });
}
