/** Reading the files `society openagi` commands name: one line on what went wrong, exit 2. */
import { readFileSync } from 'node:fs';
import { type OpenAgiTask, parseTaskFile } from '../../../experts/openagi.ts';
import { UsageError } from '../../errors.ts';

/** Reads a file or says, in one line, why it cannot. */
export function readInput(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (code ?? (error as Error).message);
    throw new UsageError(`cannot read ${what} ${path} (${why})`);
  }
}

/** The tasks of a task file; a file with none is a usage error. */
export function readTasks(path: string): { tasks: OpenAgiTask[]; problems: string[] } {
  const parsed = parseTaskFile(readInput(path, 'the task file').toString('utf8'));
  if (parsed.tasks.length === 0) {
    const first = parsed.problems[0] ? `; first problem: ${parsed.problems[0]}` : '';
    throw new UsageError(`${path}: no OpenAGI task could be read${first}`);
  }
  return parsed;
}
