/** Reading the world a `society world` command names: a file, or a built-in world's name. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { BUILTIN_WORLDS, builtinWorld } from '../../../environments/textworld/builtin.ts';
import type { WorldSpec } from '../../../environments/textworld/format.ts';
import { type LoadResult, loadWorld } from '../../../environments/textworld/load.ts';
import { problemsExit } from '../../document-file.ts';
import { EXIT, Exit } from '../../errors.ts';

/** World files larger than this are refused unread: a world is a small, shared document. */
const MAX_BYTES = 2 * 1024 * 1024;

/** Loads the world in `file`; an unreadable or oversized file ends the command (exit 2). */
export function loadWorldFile(file: string): LoadResult {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_BYTES)
      throw new Exit(
        EXIT.invalid,
        `society: ${file} is ${size} bytes; a world file is at most ${MAX_BYTES}`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof Exit) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Exit(EXIT.invalid, `society: cannot read ${file} (${reason})`);
  }
  return loadWorld(text);
}

/**
 * The world `name` stands for: a file when one exists at that path, else a built-in world.
 * Problems end the command (exit 2, one line each, led by the file name).
 */
export function worldNamed(name: string): WorldSpec {
  if (!existsSync(name)) {
    const builtin = builtinWorld(name);
    if (builtin) return builtin;
    throw new Exit(
      EXIT.invalid,
      `society: cannot read ${name} (no such file, and the built-in worlds are: ${BUILTIN_WORLDS.join(', ')})`,
    );
  }
  const loaded = loadWorldFile(name);
  if (!loaded.ok) throw problemsExit(name, loaded.problems);
  return loaded.spec;
}
