/** `society credit`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../../options.ts';
import type { CreditFlags } from './credit-run.ts';

/** Adds `society credit` to the program. */
export function register(program: Command): void {
  program
    .command('credit')
    .description(
      "each member's influence on a run: the run again without it, unchanged calls from its record",
    )
    .argument('[run]', 'a run id or a unique prefix of one')
    .option(
      '--eval <ID>',
      "instead of one run: each scored run of an eval's variant, averaged per member",
    )
    .option(
      '--variant <NAME>',
      "with --eval: the variant whose runs are credited (default: the eval's first)",
    )
    .option(
      '--by <UNIT>',
      'what is left out: member (each member in every round) or round (each member in one round)',
      'member',
    )
    .option(
      '--member <NAME>',
      'leave out only this member, e.g. member#2 (member#2@r1 by round; repeatable; default: each in turn)',
      collect,
      [],
    )
    .option(
      '--output <NAME>',
      "the output compared with the run's (default: the run's first output)",
    )
    .option(
      '--metric <SCORER>',
      'score the output with a built-in scorer (exact, choice, contains, number, f1, rougeL, cos)',
    )
    .option('--expect <VALUE>', 'the reference the scorer compares with')
    .option(
      '--score <OUTPUT>',
      "instead of --metric: the run's own score, the number in this output (a metric node's)",
    )
    .option('--simulate', 'answer the calls a member changes with the simulated provider')
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider (append ,key=ENV_VAR, ,kind=huggingface)',
      collect,
      [],
    )
    .option(
      '--allow-host <ORIGIN>',
      'let the forks contact an origin not allowed with society hosts (repeatable)',
      collect,
      [],
    )
    .option('--json', 'print one JSON object: the run, the compared output and each member')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string | undefined, flags: CreditFlags) => {
      process.exitCode = await (await import('./credit.ts')).creditCommand(id, flags);
    });
}
