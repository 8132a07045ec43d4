/**
 * Options several commands share, declared once: lists given by repeating a flag, the options of
 * the commands that execute a run again, and those of every command that stores an eval. Only
 * commander here: what the options do loads with each command.
 */
import type { Command } from 'commander';

/** Commander's collector for a repeatable flag: every value given, in order. */
export const collect = (value: string, previous: string[]) => [...previous, value];

/** Options shared by the commands that execute a run again (resume, fork). */
export function executionOptions(command: Command): Command {
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

/**
 * The options every command that stores an eval shares (society eval and the papers' tables):
 * the report page, workers through a queue, and the hosts its runs in this process may contact.
 */
export function evalRunOptions(command: Command): Command {
  return command
    .option(
      '--report <FILE.html>',
      'also write the eval as one self-contained HTML page (table, charts, worst items with run ids)',
    )
    .option(
      '--queue <URL>',
      'run the jobs on workers (society worker) through Redis at redis://[USER:PASSWORD@]HOST:PORT[/DB] (rediss:// for TLS); their runs come back into this store. Needs SOCIETY_QUEUE_SECRET or --queue-secret-file',
    )
    .option(
      '--queue-secret-file <FILE>',
      'with --queue: the file holding the secret shared with the workers (default: SOCIETY_QUEUE_SECRET); jobs are signed with it',
    )
    .option(
      '--rate <PROVIDER=N/UNIT>',
      'with --queue: at most N live calls to PROVIDER per s, min or h across all workers, e.g. openai=60/min; repeatable',
      collect,
      [],
    )
    .option(
      '--repeats <N>',
      'run each item N times, repeat r with run seed r (default: 1); variants are compared by paired tests over item and repeat',
    )
    .option(
      '--allow-host <ORIGIN>',
      "let this eval's runs contact an origin not allowed with society hosts, e.g. http://127.0.0.1:5123 (repeatable; not with --queue: workers allow their own)",
      collect,
      [],
    );
}
