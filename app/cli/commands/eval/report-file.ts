/**
 * `--report FILE.html` on `society eval` and `society eval-show`: where the page (app/eval/
 * report.ts) is written. The path is checked before an eval starts, so a typo in it does not
 * cost a whole eval's runs before it shows.
 */
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { evalReport } from '../../../eval/report.ts';
import type { EvalItemRecord, EvalSummary } from '../../../eval/types.ts';
import { UsageError } from '../../errors.ts';

const why = (error: unknown) =>
  (error as NodeJS.ErrnoException).code === 'EACCES'
    ? 'permission denied'
    : ((error as Error).message.split('\n')[0] ?? 'unknown error');

/** Throws a one-line UsageError unless `file` can be written (its folder exists and is writable). */
export function checkReportPath(file: string): void {
  const dir = path.dirname(path.resolve(file));
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory()) throw new UsageError(`--report ${file}: is a folder, not a file`);
  const parent = statSync(dir, { throwIfNoEntry: false });
  if (!parent?.isDirectory())
    throw new UsageError(`--report ${file}: the folder ${dir} does not exist`);
  try {
    accessSync(stat ? file : dir, constants.W_OK);
  } catch (error) {
    throw new UsageError(`--report ${file}: cannot write there (${why(error)})`);
  }
}

/** Writes the eval's report page to `file`; a write that fails is a one-line UsageError. */
export function writeReport(
  file: string,
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
): void {
  checkReportPath(file);
  try {
    writeFileSync(file, evalReport(summary, items));
  } catch (error) {
    throw new UsageError(`--report ${file}: cannot write there (${why(error)})`);
  }
}
