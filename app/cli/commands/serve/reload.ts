/**
 * Reloading served documents when their files change: a valid edit is served from the next
 * request on (runs already started keep the version they began with); a broken one keeps the
 * last good version and says why. Files are polled, so an editor that saves by renaming is seen
 * too. A folder's new files are not picked up: restart the server for those.
 */
import { unwatchFile, watchFile } from 'node:fs';
import { formatProblem } from '../../../schema/problems.ts';
import { type ServedSociety, servedSociety } from '../../../serve/catalog.ts';
import { compileFile } from '../../document-file.ts';

/** Checks a reloaded society would run (keys, MCP servers, hosts); throws what it lacks. */
export type ReloadCheck = (society: ServedSociety) => void;

/** Watches each society's file; returns what stops watching. */
export function watchDocuments(
  societies: readonly ServedSociety[],
  replace: (society: ServedSociety) => void,
  check: ReloadCheck,
  log: (line: string) => void,
  intervalMs = 500,
): () => void {
  const files = societies.map((society) => {
    let pending = Promise.resolve();
    const listener = (now: { mtimeMs: number }, before: { mtimeMs: number }) => {
      if (now.mtimeMs === before.mtimeMs) return;
      // One reload at a time per file, in the order the changes came.
      pending = pending.then(() => reload(society, replace, check, log));
    };
    watchFile(society.file, { interval: intervalMs }, listener);
    return () => unwatchFile(society.file, listener);
  });
  return () => {
    for (const stop of files) stop();
  };
}

async function reload(
  society: ServedSociety,
  replace: (society: ServedSociety) => void,
  check: ReloadCheck,
  log: (line: string) => void,
): Promise<void> {
  const keep = `${society.file}: kept the last good version of "${society.name}"`;
  try {
    const compiled = await compileFile(society.file);
    if (!compiled.ok) {
      log(`${keep}: ${compiled.problems.map(formatProblem).join('; ')}`);
      return;
    }
    const next = servedSociety(society.name, society.file, compiled);
    check(next);
    replace(next);
    log(`${society.file}: reloaded "${society.name}"`);
  } catch (error) {
    // The log line already starts `society:`: a message made for the terminal does not repeat it.
    const lines = (error as Error).message.split('\n').map((l) => l.replace(/^society: /, ''));
    log(`${keep}: ${lines.join('; ')}`);
  }
}
