/** `society interview`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { collect } from '../../options.ts';
import type { InterviewFlags } from './interview.ts';

/** Adds `society interview` to the program. */
export function register(program: Command): void {
  program
    .command('interview')
    .description(
      "ask a member of a run a question in its own context at a point (a side call, recorded apart from the run, that never changes it); --list shows the run's interviews",
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .argument(
      '[member]',
      'the member and the point: an instance such as member#2@r3 (its call in round 3), or member#2 for its latest call',
    )
    .argument('[question]', 'what to ask (quote it)')
    .option('--list', "list the run's interviews, oldest first")
    .option('--simulate', 'answer with the simulated provider (the answer is labelled simulated)')
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider (append ,key=ENV_VAR, ,kind=huggingface)',
      collect,
      [],
    )
    .option('--json', 'print the interview record(s) as JSON')
    .option('--db <FILE>', 'the run store')
    .action(
      async (
        id: string,
        member: string | undefined,
        question: string | undefined,
        flags: InterviewFlags,
      ) => {
        process.exitCode = await (await import('./interview.ts')).interviewCommand(
          id,
          member,
          question,
          flags,
        );
      },
    );
}
