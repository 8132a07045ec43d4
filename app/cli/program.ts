/**
 * The `society` command line. Each command declares its arguments, options and help beside its
 * code (a `NAME.command.ts` module in app/cli/commands/, listed in its index.ts); a command's code is
 * imported only when it runs, so `--version`, `--help` and a mistyped flag answer at once and
 * `validate` loads no model client, image library or database.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { COMMANDS } from './commands/index.ts';

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

  for (const register of COMMANDS) register(program);
  return program;
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
