/**
 * `npm run dist` and `npm run dist:dir`: the desktop app packaged by electron-builder, as
 * electron-builder.yml says, for this machine's platform (AppImage and deb on Linux, dmg on
 * macOS, an nsis installer on Windows); `--dir` leaves the unpacked app in release/ instead.
 *
 * It checks first what packaging needs, and stops with one line saying how to get it:
 * electron-builder (a dev dependency) and Electron's program, which electron-builder packs.
 * Packages install without their scripts here (.npmrc `ignore-scripts`), so the `electron`
 * package arrives without its program (see main/start.ts); packaging uses that same program
 * (electron-builder's `electronDist`), so nothing is fetched twice and a machine that can run
 * `npm start` can package. Then it builds the renderer and hands over to electron-builder.
 *
 * Like main/start.ts, it starts no process itself: Vite and electron-builder run in this one.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ElectronState, electronState } from './electron-program.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

type Env = Readonly<Record<string, string | undefined>>;

/** What packaging found on this machine. */
export type PackagingReadiness =
  | { ok: true; electronDist: string }
  | { ok: false; problem: string };

/** Whether a package resolves from the project (without loading it). */
function installed(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks that electron-builder and Electron's program are here; the problem, when one is
 * missing, is one line saying how to get it.
 */
export function packagingReadiness(
  state: ElectronState = electronState(),
  builderInstalled: boolean = installed('electron-builder'),
  env: Env = process.env,
): PackagingReadiness {
  if (!builderInstalled) {
    return {
      ok: false,
      problem:
        'packaging needs electron-builder, a dev dependency that is not installed: run npm install, then try again',
    };
  }
  if (state.kind === 'no-package') {
    return {
      ok: false,
      problem:
        'packaging needs the electron package, which is not installed: run npm install, then try again',
    };
  }
  if (state.kind === 'no-binary') {
    return {
      ok: false,
      problem:
        `packaging needs Electron ${state.version}'s program, which is not here (packages install without their scripts): ` +
        "fetch it once with `node node_modules/electron/install.js` (it downloads about 100 MB from Electron's releases), then try again",
    };
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  return { ok: true, electronDist: override || path.join(state.packageDir, 'dist') };
}

/** The part of electron-builder's API this uses. */
interface ElectronBuilder {
  build(options: {
    projectDir: string;
    dir: boolean;
    publish: 'never';
    config: { electronDist: string };
  }): Promise<string[]>;
}

/** What `dist` does, injectable for tests. */
export interface DistOptions {
  readiness?: () => PackagingReadiness;
  /** Where the one-line messages go. */
  say?: (line: string) => void;
  buildRenderer?: () => Promise<void>;
  builder?: () => Promise<ElectronBuilder>;
}

/** Checks, builds the renderer, then packages; returns the exit code (1 with one line on failure). */
export async function dist(argv: readonly string[], options: DistOptions = {}): Promise<number> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const command = argv.includes('--dir') ? 'npm run dist:dir' : 'npm run dist';
  const ready = (options.readiness ?? packagingReadiness)();
  if (!ready.ok) {
    say(`${command}: ${ready.problem}.`);
    return 1;
  }
  try {
    await (options.buildRenderer ?? buildRenderer)();
  } catch (error) {
    say(`${command}: the renderer did not build: ${firstLine(error)}`);
    return 1;
  }
  try {
    const builder = await (options.builder ?? loadBuilder)();
    const files = await builder.build({
      projectDir: ROOT,
      dir: argv.includes('--dir'),
      publish: 'never',
      config: { electronDist: ready.electronDist },
    });
    say(`${command}: packaged into release/${files.length ? ` (${files.length} files)` : ''}`);
    return 0;
  } catch (error) {
    // electron-builder has logged its own details above; this is the line to read.
    say(`${command}: electron-builder failed: ${firstLine(error)}`);
    return 1;
  }
}

/** `vite build` of the renderer into dist/renderer, which electron-builder.yml ships. */
async function buildRenderer(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
}

async function loadBuilder(): Promise<ElectronBuilder> {
  // A variable specifier: a dev dependency, resolved only here at run time.
  const specifier = 'electron-builder';
  const module = (await import(specifier)) as Partial<ElectronBuilder> & {
    default?: ElectronBuilder;
  };
  return module.build ? (module as ElectronBuilder) : module.default!;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

if (import.meta.main) process.exitCode = await dist(process.argv.slice(2));
