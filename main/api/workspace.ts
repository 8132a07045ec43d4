/**
 * The workspace: one folder of `.society.json` documents the editor may list, open and save.
 * Documents are named, never given by path (main/api/document-name.ts), so the only thing under
 * the folder a name reaches is one directory entry, and that entry must be a regular file: a
 * symbolic link is refused for reading and writing alike, since a link planted in the folder (an
 * unpacked archive, a shared drive) would otherwise read or replace a file anywhere the user can.
 * The folder itself may be reached through links (a symlinked workspace, /tmp on macOS): only the
 * entry inside it is checked.
 */
import { constants, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkDocumentName } from './document-name.ts';
import { ApiError } from './errors.ts';

export { checkDocumentName, DOCUMENT_EXTENSION } from './document-name.ts';

/**
 * Flags for opening a document to read: a link is not followed (ELOOP), and a FIFO swapped in
 * after the check does not block the open. Windows has neither flag; the lstat before the open
 * is the check there.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A document in the workspace. */
export interface WorkspaceFile {
  name: string;
  /** Milliseconds since the epoch. */
  modifiedAt: number;
}

/** The documents in `dir`, by name; none when the folder does not exist yet. */
export async function listDocuments(dir: string): Promise<WorkspaceFile[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ApiError(`cannot list the workspace: ${codeOf(error)}`);
  }
  const files: WorkspaceFile[] = [];
  for (const entry of entries) {
    // A link is not a file here (Dirent describes the entry itself), so links are not offered.
    if (!entry.isFile()) continue;
    try {
      checkDocumentName(entry.name);
    } catch {
      continue; // a name the page could not open again is not offered
    }
    try {
      const info = await lstat(path.join(dir, entry.name));
      if (info.isFile()) files.push({ name: entry.name, modifiedAt: Math.round(info.mtimeMs) });
    } catch {
      // gone since the listing
    }
  }
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

/** The text of a document in `dir`. */
export async function readDocument(dir: string, name: string): Promise<string> {
  const file = path.join(dir, checkDocumentName(name));
  await refuseNonFile(file, name, 'open');
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, READ_FLAGS);
    // Checked again on what was opened: the entry may have changed since the lstat.
    if (!(await handle.stat()).isFile()) throw notAFile(name, 'open', 'not a regular file');
    return await handle.readFile('utf8');
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ApiError(`there is no document "${name}" in the workspace`);
    if (code === 'ELOOP') throw notAFile(name, 'open', 'a symbolic link');
    throw new ApiError(`cannot read "${name}": ${codeOf(error)}`);
  } finally {
    await handle?.close();
  }
}

/**
 * Saves a document in `dir`, creating the folder if needed. The text goes to a new temporary file
 * first (created exclusively, so nothing planted under its name is followed) and is renamed over
 * the old one, so a crash never leaves half a document; a rename replaces the entry itself, never
 * what a link points to.
 */
export async function writeDocument(dir: string, name: string, text: string): Promise<void> {
  const file = path.join(dir, checkDocumentName(name));
  await refuseNonFile(file, name, 'save');
  const temporary = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temporary, text, { encoding: 'utf8', flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw new ApiError(`cannot save "${name}": ${codeOf(error)}`);
  }
}

/** Throws when the entry for `name` exists and is anything but a regular file. */
async function refuseNonFile(file: string, name: string, action: 'open' | 'save'): Promise<void> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(file);
  } catch {
    return; // missing: reading says so, saving creates it
  }
  if (info.isSymbolicLink()) throw notAFile(name, action, 'a symbolic link');
  if (!info.isFile()) throw notAFile(name, action, 'not a regular file');
}

function notAFile(name: string, action: 'open' | 'save', what: string): ApiError {
  return new ApiError(
    `cannot ${action} "${name}": in the workspace it is ${what}, and documents are only ever plain files in that folder`,
  );
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
