/** `society worker`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../options.ts';
import type { WorkerFlags } from './worker.ts';

/** Adds `society worker` to the program. */
export function register(program: Command): void {
  program
    .command('worker')
    .description(
      'run eval jobs queued by society eval --queue and runs served by society serve --queue, until stopped; each finished run goes back to the eval or the server',
    )
    .requiredOption(
      '--queue <URL>',
      'the Redis server the evals use: redis://[USER:PASSWORD@]HOST:PORT[/DB] (rediss:// for TLS)',
    )
    .option(
      '--queue-secret-file <FILE>',
      'the file holding the secret shared with the coordinator (default: SOCIETY_QUEUE_SECRET); jobs not signed with it are refused',
    )
    .option(
      '--provider <NAME=URL>',
      'a provider profile of this worker: NAME=URL[,key=ENV_VAR][,kind=huggingface], as the eval gave it; jobs name profiles, never URLs (repeatable)',
      collect,
      [],
    )
    .option(
      '--concurrency <K>',
      'eval jobs at once in this process, and as many served runs (default: 4)',
    )
    .option(
      '--rate <PROVIDER=N/UNIT>',
      "at most N live calls to PROVIDER per s, min or h, counted across all workers in Redis (the eval's own --rate applies too; the stricter wins); repeatable",
      collect,
      [],
    )
    .option('--db <FILE>', "keep this worker's runs in this store too (default: a temporary one)")
    .addHelpText(
      'after',
      `
A worker needs what the eval's document needs: its providers reachable and their keys in the
environment, and the queue's secret. It takes no URL or key variable from a job: a job names
provider profiles, which must be this worker's own (society providers --add, or --provider). A worker killed mid-job (even kill -9) stops renewing its lock on the job; another
worker takes the job over within 15 s (a 10 s lock plus a stalled-job check every 5 s) and runs
it again. Ctrl-C or SIGTERM lets running jobs finish; a second one stops at once.`,
    )
    .action(async (flags: WorkerFlags) => {
      process.exitCode = await (await import('./worker.ts')).workerCommand(flags);
    });
}
