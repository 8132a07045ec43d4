/** `society replay`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../options.ts';
import type { ReplayFlags } from './replay.ts';

/** Adds `society replay` to the program. */
export function register(program: Command): void {
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
      process.exitCode = await (await import('./replay.ts')).replayCommand(path, flags);
    });
}
