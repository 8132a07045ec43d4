/** `society run`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { SIMULATED_LABEL } from '../../schema/simulated.ts';
import { defaultDatabasePath } from '../../store/paths.ts';
import { budgetOptions } from '../budget-options.ts';
import { collect } from '../options.ts';
import type { RunFlags } from './run.ts';

/** Adds `society run` to the program. */
export function register(program: Command): void {
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
    .option(
      '--mcp <NAME=URL>',
      'an MCP server (Streamable HTTP) for this run, added or in place of your profile NAME (repeatable)',
      collect,
      [],
    )
    .option(
      '--approve-tools <LIST>',
      'run these tools without asking, though their policy is ask: NAME/TOOL,… (NAME/* every tool of a server, all every tool)',
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
      'stop at node:ID, round:N, event:TYPE, report:KIND, message:TEXT, from:INSTANCE, tool:NAME or tool-result:NAME (opens the terminal debugger)',
      collect,
      [],
    )
    .option('--db <FILE>', `the run store (default: ${defaultDatabasePath()})`);
  budgetOptions(run).action(async (file: string, flags: RunFlags) => {
    process.exitCode = await (await import('./run.ts')).runCommand(file, flags);
  });
}
