/** `society hosts`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../options.ts';
import type { HostsFlags } from './hosts.ts';

/** Adds `society hosts` to the program. */
export function register(program: Command): void {
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
    .action(async (flags: HostsFlags) => (await import('./hosts.ts')).hostsCommand(flags));
}
