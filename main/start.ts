/**
 * `npm start`: the desktop app when Electron can run on this machine, else the same editor in
 * the browser (the studio, main/studio/start.ts).
 *
 * The project installs packages without running their scripts (.npmrc `ignore-scripts`), so
 * the `electron` package arrives without its program: its own install script, which downloads
 * it, never ran. When the package is here but the program is not, this tries once to fetch it
 * by running that script (node_modules/electron/install.js) under a time limit, and falls back
 * to the studio with a message when that fails (no network, a proxy, a timeout).
 * `SOCIETY_NO_ELECTRON=1` goes straight to the studio.
 *
 * The install script runs in a worker thread and Electron starts through its own launcher,
 * `electron/cli.js` (what `npx electron .` runs), so this file starts no process itself (S18).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { YOUNG_GENERATION_FLAG } from '../app/memory/young-generation.ts';
import { type ElectronState, electronState } from './electron-program.ts';
import { runStudio } from './studio/start.ts';

export { type ElectronState, electronState } from './electron-program.ts';

/** The app folder Electron is started on: its package.json names the shell's entry. */
const APP_DIR = fileURLToPath(new URL('../', import.meta.url));
const SHELL_DIR = fileURLToPath(new URL('./electron/', import.meta.url));

/** How long fetching Electron (about 100 MB) may take before the studio starts instead. */
export const ELECTRON_FETCH_TIMEOUT_MS = 90_000;

/** The variable that skips Electron. */
export const NO_ELECTRON_VARIABLE = 'SOCIETY_NO_ELECTRON';

type Env = Readonly<Record<string, string | undefined>>;

/** How running an install script ended. */
export type InstallOutcome = { ok: true } | { ok: false; reason: string };

/**
 * Runs a CommonJS install script (electron's install.js) in a worker thread, with its output
 * captured rather than printed, and stops it after `timeoutMs`. Never rejects.
 */
export function runInstallScript(script: string, timeoutMs: number): Promise<InstallOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: InstallOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let worker: Worker;
    try {
      worker = new Worker(script, { stdout: true, stderr: true });
    } catch (error) {
      resolve({ ok: false, reason: (error as Error).message });
      return;
    }
    let errors = '';
    worker.stdout.resume();
    worker.stderr.setEncoding('utf8');
    worker.stderr.on('data', (chunk: string) => {
      if (errors.length < 10_000) errors += chunk;
    });
    const timer = setTimeout(() => {
      finish({ ok: false, reason: `it took longer than ${Math.round(timeoutMs / 1000)} s` });
      void worker.terminate();
    }, timeoutMs);
    worker.once('error', (error) => finish({ ok: false, reason: firstLine(error.message) }));
    worker.once('exit', (code) => {
      // Let the last of its error output arrive before reading it.
      setImmediate(() =>
        finish(
          code === 0
            ? { ok: true }
            : { ok: false, reason: firstLine(errors) || `it exited with code ${code}` },
        ),
      );
    });
  });
}

/** What `npm start` needs to decide, injectable for tests. */
export interface LaunchOptions {
  env?: Env;
  /** Where the messages go. */
  say?: (line: string) => void;
  state?: () => ElectronState;
  install?: (script: string, timeoutMs: number) => Promise<InstallOutcome>;
  timeoutMs?: number;
  /** Whether the Electron shell (main/electron) is here. */
  shellPresent?: boolean;
}

/**
 * Decides between the desktop app and the studio, fetching Electron's program once when only
 * that is missing. Says why whenever the answer is the studio.
 */
export async function chooseShell(options: LaunchOptions = {}): Promise<'electron' | 'studio'> {
  const env = options.env ?? process.env;
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const state = options.state ?? (() => electronState(env));
  const install = options.install ?? runInstallScript;
  const timeoutMs = options.timeoutMs ?? ELECTRON_FETCH_TIMEOUT_MS;
  const shellPresent = options.shellPresent ?? existsSync(SHELL_DIR);
  const instead = 'starting the studio in your browser instead.';

  if (env[NO_ELECTRON_VARIABLE] === '1') {
    say(`${NO_ELECTRON_VARIABLE}=1: ${instead}`);
    return 'studio';
  }
  if (!shellPresent) {
    say(`The desktop shell (main/electron) is not here; ${instead}`);
    return 'studio';
  }
  const found = state();
  if (found.kind === 'ready') return 'electron';
  if (found.kind === 'no-package') {
    say(`Electron is not installed (run npm install); ${instead}`);
    return 'studio';
  }
  const script = path.join(found.packageDir, 'install.js');
  say(
    `Electron ${found.version} is installed without its program (packages install without their scripts here). ` +
      `Fetching it once with node_modules/electron/install.js, for at most ${Math.round(timeoutMs / 1000)} s ` +
      `(set ${NO_ELECTRON_VARIABLE}=1 to skip)…`,
  );
  const outcome = await install(script, timeoutMs);
  if (outcome.ok && state().kind === 'ready') {
    say('Electron is ready.');
    return 'electron';
  }
  const reason = outcome.ok ? 'the program is still missing afterwards' : outcome.reason;
  say(`Could not fetch Electron (${reason}); ${instead}`);
  say(`To try again later: node node_modules/electron/install.js, then npm start.`);
  return 'studio';
}

/**
 * What Electron is started with: its main process runs societies, so its V8 gets the young
 * generation's cap as `npm start`'s node does (`--js-flags` reaches only the process it is given
 * to at start-up), then the app folder and the user's arguments.
 */
export function electronArguments(argv: readonly string[]): string[] {
  return [`--js-flags=${YOUNG_GENERATION_FLAG}`, APP_DIR, ...argv];
}

/** Starts the desktop app, or the studio when it cannot. */
export async function start(argv: string[]): Promise<number> {
  if ((await chooseShell()) === 'electron') {
    // electron/cli.js starts the program with process.argv's arguments and exits with it.
    process.argv = [process.argv[0]!, 'electron', ...electronArguments(argv)];
    // A variable specifier: the package is a dev dependency, resolved only here at run time.
    const launcher = 'electron/cli.js';
    await import(launcher);
    return 0;
  }
  return runStudio(argv);
}

function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

if (import.meta.main) process.exitCode = await start(process.argv.slice(2));
