/**
 * Writing a file into a folder that may hold someone else's symlinks (`--out DIR`). Opening the
 * target by name would follow a symlink planted there and overwrite whatever it points at — a
 * shell's startup file, a key. Instead the bytes go to a new file made beside the target with
 * O_CREAT|O_EXCL (which never follows a link, and fails when anything is at that name), and that
 * file is renamed over the target: a regular file there is replaced as before, and a symlink there
 * is replaced by the file — never followed, so what it pointed at is left untouched.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `bytes` to `path` by a new file renamed over it (see above). Throws the system's error
 * (EISDIR when `path` is a folder, EACCES…) after removing its own new file.
 */
export function replaceFile(path: string, bytes: Uint8Array): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx' is O_WRONLY|O_CREAT|O_EXCL: a name already taken, link or not, is an error, not a target.
  const fd = openSync(temp, 'wx', 0o666);
  try {
    try {
      let written = 0;
      while (written < bytes.byteLength) written += writeSync(fd, bytes, written);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
