/**
 * Files a dataset names (`--map INPUT=@FIELD`, `society nlsom eval`'s photos). A dataset is data
 * someone else may have written: the paths in its rows are read only inside one folder (the data
 * file's own, or the one the user names with `--files DIR` / `--images DIR`). An absolute path,
 * a `..` step or a symlink that leads out of that folder is refused before anything is read, so
 * a hostile row cannot send `/proc/self/environ` or `~/.ssh/id_ed25519` as a prompt.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Which rule a row's path broke; `missing` alone is not an attack (a photo not downloaded). */
export type DatasetPathRule =
  | 'absolute'
  | 'parent'
  | 'symlink'
  | 'missing'
  | 'not-a-file'
  | 'unreadable';

/** A row's path broke one of the rules; the message names the rule, the path and the folder. */
export class DatasetPathError extends Error {
  readonly rule: DatasetPathRule;
  constructor(rule: DatasetPathRule, message: string) {
    super(message);
    this.name = 'DatasetPathError';
    this.rule = rule;
  }
}

/** True when `path` is `root` itself or below it (both already resolved). */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The real path of the file `named` (a row's value) inside `root`, to read instead of `named`:
 * every symlink on the way is resolved, and the result must still be inside `root`'s real path.
 * Throws DatasetPathError naming the rule (absolute, `..`, a symlink out, not a file); the
 * caller's job then fails alone and nothing is read.
 */
export function datasetFile(root: string, named: string): string {
  const shown = JSON.stringify(named);
  if (named.includes('\0'))
    throw new DatasetPathError('unreadable', `file ${shown}: a path holds no NUL byte`);
  // `C:\…`, `\\server\…` and `/…` are all absolute somewhere; a dataset's paths never are.
  if (isAbsolute(named) || /^[A-Za-z]:/.test(named) || named.startsWith('\\'))
    throw new DatasetPathError(
      'absolute',
      `file ${shown} is an absolute path; a dataset names files relative to ${root}`,
    );
  if (named.split(/[\\/]/).includes('..'))
    throw new DatasetPathError(
      'parent',
      `file ${shown} steps out with ".."; a dataset names files inside ${root}`,
    );
  const path = resolve(root, named);
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new DatasetPathError('missing', `file ${shown}: no such file in ${root}`);
    throw new DatasetPathError('unreadable', `file ${shown}: cannot be resolved (${code})`);
  }
  if (!isInside(realRoot, real))
    throw new DatasetPathError(
      'symlink',
      `file ${shown} is a symlink (or lies under one) leading out of ${root}; a dataset's files stay inside it`,
    );
  if (!statSync(real).isFile())
    throw new DatasetPathError('not-a-file', `file ${shown} is not a file`);
  return real;
}
