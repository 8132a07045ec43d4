/**
 * `npm start`: the desktop app when Electron is installed on this machine, else the same editor
 * in the browser (the studio, main/studio/start.ts).
 *
 * The Electron shell (windows, preload, IPC and the safeStorage key vault) lives in
 * main/electron when present. Electron is launched through its own launcher, `electron/cli.js`,
 * the program `npx electron .` runs, so this file starts no process itself (S18).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runStudio } from './studio/start.ts';

/** The app folder Electron is started on: its package.json names the shell's entry. */
const APP_DIR = fileURLToPath(new URL('../', import.meta.url));
const SHELL_DIR = fileURLToPath(new URL('./electron/', import.meta.url));

/**
 * Whether the `electron` package and its binary are here. Under Node the package exports the
 * binary's path, and throws when its download was skipped or failed (as on CI machines).
 */
export async function electronAvailable(): Promise<boolean> {
  // A variable specifier: the package is optional, so neither tsc nor a bundler resolves it.
  const name = 'electron';
  try {
    const binary = ((await import(name)) as { default?: unknown }).default;
    return typeof binary === 'string' && existsSync(binary);
  } catch {
    return false;
  }
}

/** Starts the desktop app, or the studio when it cannot. */
export async function start(argv: string[]): Promise<number> {
  if ((await electronAvailable()) && existsSync(SHELL_DIR)) {
    // electron/cli.js starts the binary with process.argv's arguments and exits with it.
    process.argv = [process.argv[0]!, 'electron', APP_DIR, ...argv];
    const launcher = 'electron/cli.js';
    await import(launcher);
    return 0;
  }
  process.stdout.write(
    'Electron is not available on this machine; starting the studio in your browser instead.\n',
  );
  return runStudio(argv);
}

if (import.meta.main) process.exitCode = await start(process.argv.slice(2));
