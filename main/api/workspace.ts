/**
 * The workspace: one folder of `.society.json` documents the editor may list, open and save.
 * The page names files, never paths (S9): a name is a plain file name ending in `.society.json`,
 * so nothing it sends can reach outside the folder.
 */
import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from './errors.ts';

/** The extension of every document the workspace holds. */
export const DOCUMENT_EXTENSION = '.society.json';

/** Longest name accepted; file systems commonly allow 255 bytes. */
const MAX_NAME_LENGTH = 200;

/**
 * Characters refused in a name: separators and parent references would leave the folder, the
 * rest are invalid on Windows, so a workspace can move between machines.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const FORBIDDEN = /[/\\:*?"<>|\u0000-\u001f\u007f]/;

/**
 * Checks a document name from the page and returns it; throws an ApiError saying what is wrong
 * with anything that is not a plain `NAME.society.json` file name.
 */
export function checkDocumentName(name: string): string {
  const shown = JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
  if (!name.endsWith(DOCUMENT_EXTENSION) || name.length === DOCUMENT_EXTENSION.length) {
    throw new ApiError(`${shown} is not a document name: it must end in ${DOCUMENT_EXTENSION}`);
  }
  if (
    FORBIDDEN.test(name) ||
    name.includes('..') ||
    path.isAbsolute(name) ||
    path.win32.isAbsolute(name) ||
    path.basename(name) !== name
  ) {
    throw new ApiError(
      `${shown} is not a plain file name: documents are named, not given by path (no / \\ .. or drive)`,
    );
  }
  if (name.startsWith('.') || name.trim() !== name) {
    throw new ApiError(`${shown} may not start with a dot or a space, or end with a space`);
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw new ApiError(`a document name may be at most ${MAX_NAME_LENGTH} characters`);
  }
  return name;
}

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
    if (!entry.isFile() || !entry.name.endsWith(DOCUMENT_EXTENSION)) continue;
    try {
      checkDocumentName(entry.name);
    } catch {
      continue; // a name the page could not open again is not offered
    }
    const info = await stat(path.join(dir, entry.name));
    files.push({ name: entry.name, modifiedAt: Math.round(info.mtimeMs) });
  }
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

/** The text of a document in `dir`. */
export async function readDocument(dir: string, name: string): Promise<string> {
  const file = path.join(dir, checkDocumentName(name));
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ApiError(`there is no document "${name}" in the workspace`);
    }
    throw new ApiError(`cannot read "${name}": ${codeOf(error)}`);
  }
}

/**
 * Saves a document in `dir`, creating the folder if needed. The text goes to a temporary file
 * first and is renamed over the old one, so a crash never leaves half a document.
 */
export async function writeDocument(dir: string, name: string, text: string): Promise<void> {
  const file = path.join(dir, checkDocumentName(name));
  const temporary = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, file);
  } catch (error) {
    throw new ApiError(`cannot save "${name}": ${codeOf(error)}`);
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
