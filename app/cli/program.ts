/**
 * The `society` command line: every command with its arguments, options and help. A command's
 * code is imported only when it runs, so `--version`, `--help` and a mistyped flag answer at once
 * and `validate` loads no model client, image library or database.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { OPENAGI_CATEGORIES } from '../experts/openagi.ts';
import { SIMULATED_LABEL } from '../schema/simulated.ts';
import { defaultDatabasePath } from '../store/paths.ts';
import { budgetOptions } from './budget-options.ts';
import type { SweepFlags } from './commands/cuisineworld/sweep.ts';
import type { ForkFlags } from './commands/fork.ts';
import type { HostsFlags } from './commands/hosts.ts';
import type { NodesFlags } from './commands/nodes.ts';
import type { BuildFlags } from './commands/openagi/build.ts';
import type { DegradeFlags } from './commands/openagi/degrade.ts';
import type { PricesFlags } from './commands/prices.ts';
import type { ProvidersFlags } from './commands/providers.ts';
import type { ReplayFlags } from './commands/replay.ts';
import type { ResumeFlags } from './commands/resume.ts';
import type { RunFlags } from './commands/run.ts';
import type { ShowFlags } from './commands/show.ts';
import { addEvalCommands, evalRunOptions } from './eval-program.ts';
import { addItcmaCommands, addNlsomCommands, addOpenAgiEval } from './paper-program.ts';
import { addWorldCommands } from './world-program.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

/** The program; `main` parses with it. */
export function buildProgram(): Command {
  const program = new Command()
    .name('society')
    .description(
      'Build, validate and run societies of AI minds (graphs of agents, votes and mindstorms).',
    )
    .version(readVersion(), '-v, --version')
    .showHelpAfterError('(run "society --help" for usage)')
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, 'society: ')),
    });

  program
    .command('validate')
    .description('check society documents; exit 0 if valid, 2 with one line per problem')
    .argument('<files...>', '*.society.json documents')
    .option(
      '--set <NAME=VALUE>',
      'a template parameter of the document, e.g. rounds=5 (repeatable; see society params FILE)',
      collect,
      [],
    )
    .action(async (files: string[], flags: { set: string[] }) =>
      (await import('./commands/validate.ts')).validateCommand(files, flags),
    );

  program
    .command('params')
    .description("list a document's template parameters: name, type, default, what it takes")
    .argument('<file>', 'a *.society.json document')
    .option('--json', 'print the parameters as the document declares them')
    .action(async (file: string, flags: { json?: boolean }) =>
      (await import('./commands/params.ts')).paramsCommand(file, flags),
    );

  program
    .command('nodes')
    .description('list the node types with their ports (name, modality, direction) and fields')
    .argument('[type]', 'only this node type')
    .option('--json', 'print JSON: every port and field, with types and defaults')
    .option('--markdown', "print the README's node-type table")
    .action(async (type: string | undefined, flags: NodesFlags) =>
      (await import('./commands/nodes.ts')).nodesCommand(type, flags),
    );

  program
    .command('inspect')
    .description('print the compiled XState machine configs as JSON')
    .argument('<file>', 'a *.society.json document')
    .option(
      '--set <NAME=VALUE>',
      'a template parameter of the document, e.g. rounds=5 (repeatable; see society params FILE)',
      collect,
      [],
    )
    .action(async (file: string, flags: { set: string[] }) =>
      (await import('./commands/inspect.ts')).inspectCommand(file, flags),
    );

  const run = program
    .command('run')
    .description('run a society and print its outputs')
    .argument('<file>', 'a *.society.json document')
    .option(
      '-i, --input <NAME=VALUE>',
      'a value for an input or human node; NAME=@PATH reads a file (images by extension)',
      collect,
      [],
    )
    .option(
      '--set <NAME=VALUE>',
      'a template parameter of the document, e.g. rounds=5 (repeatable; see society params FILE)',
      collect,
      [],
    )
    .option(
      '--replay <CASSETTE>',
      'answer every model call from a cassette; a call it lacks is an error',
    )
    .option(
      '--replay-then-live <CASSETTE>',
      'answer from a cassette, call the model for what it lacks, and add those calls to it',
    )
    .option(
      '--replay-then-simulated <CASSETTE>',
      'answer from a cassette and the simulated provider for what it lacks (e.g. after an edit in --step); the cassette is not changed',
    )
    .option('--record <CASSETTE>', 'call the models and record every call into a cassette')
    .option(
      '--simulate',
      `use the simulated provider: deterministic, labelled "${SIMULATED_LABEL}", no key needed (with --record, records its answers)`,
    )
    .option('--json', 'print one JSON object: status, outputs, usage, runId')
    .option(
      '--out <DIR>',
      'write every output to a file in DIR: text .txt, images, audio and 3D by type, else .json',
    )
    .option('--events <FILE.ndjson>', 'write every run event as one JSON line')
    .option(
      '--model <PROFILE=PROVIDER:MODEL>',
      'point a model profile elsewhere, e.g. vlm-1=ollama:llava',
      collect,
      [],
    )
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider, e.g. local=http://localhost:8000/v1 (append ,key=ENV_VAR if it needs a key, ,kind=huggingface for an expert-model endpoint)',
      collect,
      [],
    )
    .option('-q, --quiet', 'no progress display')
    .option(
      '--allow-host <ORIGIN>',
      'let this run contact an origin not allowed with society hosts, e.g. http://127.0.0.1:5123 (repeatable)',
      collect,
      [],
    )
    .option(
      '--estimate',
      'print the estimated calls, tokens and cost (with --json: one JSON object), and exit without calling anything',
    )
    .option(
      '--step',
      'debug in the terminal: start held, then n(ext), c(ontinue), p(rint), e(dit), b(reak), q(uit)',
    )
    .option(
      '--break <SPEC>',
      'stop at node:ID, round:N, event:TYPE, message:TEXT or from:INSTANCE (opens the terminal debugger)',
      collect,
      [],
    )
    .option('--db <FILE>', `the run store (default: ${defaultDatabasePath()})`);
  budgetOptions(run).action(async (file: string, flags: RunFlags) => {
    process.exitCode = await (await import('./commands/run.ts')).runCommand(file, flags);
  });

  executionOptions(program.command('resume'))
    .description(
      'finish an interrupted run, or continue a failed or cancelled one once the cause is fixed; calls it already made are not paid again',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '-i, --input <NAME=VALUE>',
      'an answer for a human node the run has not reached yet',
      collect,
      [],
    )
    .action(async (id: string, flags: ResumeFlags) => {
      process.exitCode = await (await import('./commands/resume.ts')).resumeCommand(id, flags);
    });

  executionOptions(program.command('fork'))
    .description(
      'run again from a point of an earlier run, optionally with an edited message; unchanged calls come from its record',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '--edit <INSTANCE=TEXT>',
      'what a node instance says instead, e.g. "member#1@r2=It is a square"',
      collect,
      [],
    )
    .option(
      '--at <SEQ>',
      "keep the parent's events before this one (default: where the first edited instance started)",
    )
    .action(async (id: string, flags: ForkFlags) => {
      process.exitCode = await (await import('./commands/fork.ts')).forkCommand(id, flags);
    });

  program
    .command('diff')
    .description('compare two runs: outputs, messages, votes and usage')
    .argument('<a>', 'a run id or prefix')
    .argument('<b>', 'another run id or prefix')
    .option('--db <FILE>', 'the run store')
    .action(async (a: string, b: string, flags: { db?: string }) =>
      (await import('./commands/diff.ts')).diffCommand(a, b, flags),
    );

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
    .action(async (flags: PricesFlags) =>
      (await import('./commands/prices.ts')).pricesCommand(flags),
    );

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
      (await import('./commands/providers.ts')).providersCommand(flags),
    );

  program
    .command('hosts')
    .description(
      'list the origins documents may contact (a simulator), or allow or revoke one; none until you allow it',
    )
    .option(
      '--allow <ORIGIN>',
      'allow scheme://host:port, e.g. http://127.0.0.1:5123 (repeatable)',
      collect,
      [],
    )
    .option('--revoke <ORIGIN>', 'take an allowed origin back (repeatable)', collect, [])
    .option('--json', 'print { "origins": [...] }')
    .option('--db <FILE>', 'the run store')
    .action(async (flags: HostsFlags) => (await import('./commands/hosts.ts')).hostsCommand(flags));

  program
    .command('runs')
    .description('list recorded runs, newest first')
    .option('-n, --limit <N>', 'how many', '20')
    .option('--db <FILE>', 'the run store')
    .option(
      '--json',
      'print one JSON array: id, status, mode, document, startedAt, endedAt, calls, tokens, costUsd, parentRunId',
    )
    .action(async (flags: { limit: string; db?: string; json?: boolean }) =>
      (await import('./commands/runs.ts')).runsCommand(flags),
    );

  program
    .command('export')
    .description(
      'write a run as one self-contained JSON file (document, inputs, events, its calls)',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option('-o, --output <FILE>', 'where to write it (default: <run id>.run.json)')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, flags: { output?: string; db?: string }) =>
      (await import('./commands/export.ts')).exportCommand(id, flags),
    );

  program
    .command('replay')
    .description('run an exported run again from its recorded calls, with no key and no model call')
    .argument('<export>', 'a file written by `society export`')
    .option('--json', 'print one JSON object: status, outputs, usage, runId')
    .option('--out <DIR>', 'write every output to a file in DIR (as run --out does)')
    .option('-q, --quiet', 'no progress display')
    .option('--events <FILE.ndjson>', 'write every run event as one JSON line')
    .option(
      '--allow-host <ORIGIN>',
      'let this run contact an origin not allowed with society hosts, e.g. http://127.0.0.1:5123 (repeatable)',
      collect,
      [],
    )
    .option('--db <FILE>', 'the run store the replay is recorded in')
    .action(async (path: string, flags: ReplayFlags) => {
      process.exitCode = await (await import('./commands/replay.ts')).replayCommand(path, flags);
    });

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
      (await import('./commands/show.ts')).showCommand(id, flags),
    );

  addEvalCommands(program);
  addOpenAgiCommands(program);
  addCuisineWorldCommands(program);
  addNlsomCommands(program);
  addItcmaCommands(program);
  addWorldCommands(program);
  return program;
}

/** Options shared by the commands that execute a run again (resume, fork). */
function executionOptions(command: Command): Command {
  return command
    .option('--simulate', 'answer new calls with the simulated provider')
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider (append ,key=ENV_VAR, ,kind=huggingface)',
      collect,
      [],
    )
    .option('--json', 'print one JSON object: status, outputs, usage, runId')
    .option('--events <FILE.ndjson>', 'write the new events as JSON lines')
    .option('-q, --quiet', 'no progress display')
    .option(
      '--allow-host <ORIGIN>',
      'let this run contact an origin not allowed with society hosts, e.g. http://127.0.0.1:5123 (repeatable)',
      collect,
      [],
    )
    .option('--db <FILE>', 'the run store');
}

/** Adds `society openagi` and its subcommands to the program. */
function addOpenAgiCommands(program: Command): void {
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
      (await import('./commands/openagi/tasks.ts')).tasksCommand(file, flags),
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
      (await import('./commands/openagi/build.ts')).buildCommand(file, flags),
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
      (await import('./commands/openagi/degrade.ts')).degradeCommand(image, flags),
    );

  addOpenAgiEval(openagi);
}

/** Adds `society cuisineworld` and its subcommands to the program. */
function addCuisineWorldCommands(program: Command): void {
  const cw = program
    .command('cuisineworld')
    .description("MindAgent's CuisineWorld: levels, and sweeps scored by the collaboration score");
  cw.command('levels')
    .description('list the levels and flag dishes a kitchen cannot make')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) =>
      (await import('./commands/cuisineworld/levels.ts')).levelsCommand(flags),
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
      process.exitCode = await (await import('./commands/cuisineworld/sweep.ts')).sweepCommand(
        file,
        flags,
      );
    },
  );
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
