/**
 * The `society` command: validate, inspect and run society graphs headless.
 * Exit codes (stable, scripts rely on them): 0 success, 1 the run failed, 2 invalid arguments
 * or graph. Errors are one readable line each, never a stack trace.
 *
 * Only the program's declarations and the terminal's redaction load here; each command's code
 * is imported when that command runs (see program.ts).
 */
import { CommanderError } from 'commander';
import { secretsIn } from '../providers/secrets.ts';
import { guardTerminal, terminalText } from '../terminal/terminal-text.ts';
import { EXIT, Exit, UsageError } from './errors.ts';
import { buildProgram } from './program.ts';
import { processRedactor, redactStream } from './redaction.ts';

export { EXIT } from './errors.ts';
export { buildProgram } from './program.ts';

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // Whatever a command prints, and whatever goes wrong, the terminal never shows a key.
  processRedactor.add(secretsIn(process.env));
  // Nor does it obey a control sequence a model or a document wrote (terminal-text.ts).
  const restore = [
    redactStream(process.stdout),
    redactStream(process.stderr),
    guardTerminal(process.stdout),
    guardTerminal(process.stderr),
  ];
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof Exit) {
      if (error.message) process.stderr.write(`${terminalText(error.message)}\n`);
      return error.code;
    }
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other parse error is a usage error (2).
      return error.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    }
    // The run-record library's refusals are usage errors too; loaded only when something failed,
    // so start-up reads no more than the program's declarations.
    const { RunsError } = await import('../runs/errors.ts');
    if (error instanceof UsageError || error instanceof RunsError) {
      process.stderr.write(`society: ${terminalText(error.message)}\n`);
      return EXIT.invalid;
    }
    process.stderr.write(`society: ${terminalText((error as Error)?.message ?? String(error))}\n`);
    return EXIT.runFailed;
  } finally {
    for (const undo of restore.reverse()) undo();
  }
}
