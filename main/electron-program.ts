/**
 * Where Electron's program is: `npm start` (main/start.ts) runs it and `npm run dist`
 * (main/dist.ts) packs it. Packages install without their scripts here, so the `electron`
 * package may be present without it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the `electron` package and its program are here. */
export type ElectronState =
  | { kind: 'no-package' }
  | { kind: 'no-binary'; packageDir: string; version: string }
  | { kind: 'ready'; packageDir: string; binary: string };

/**
 * Finds the `electron` package and its program without loading the package: under Node, its
 * index.js downloads the program when it is missing, synchronously and with no time limit.
 * The lookup is the one index.js makes (path.txt names the program inside dist/).
 */
export function electronState(
  env: Env = process.env,
  resolve: (specifier: string) => string = createRequire(import.meta.url).resolve,
): ElectronState {
  let packageDir: string;
  let version = '';
  try {
    const manifest = resolve('electron/package.json');
    packageDir = path.dirname(manifest);
    version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? '';
  } catch {
    return { kind: 'no-package' };
  }
  let relative: string | undefined;
  try {
    relative = readFileSync(path.join(packageDir, 'path.txt'), 'utf8');
  } catch {
    relative = undefined;
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override
    ? path.join(override, relative || 'electron')
    : relative
      ? path.join(packageDir, 'dist', relative)
      : undefined;
  return binary && existsSync(binary)
    ? { kind: 'ready', packageDir, binary }
    : { kind: 'no-binary', packageDir, version };
}
