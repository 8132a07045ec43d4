/** Where the run store lives when the user does not say. */
import { homedir } from 'node:os';
import path from 'node:path';

/** Environment variables, e.g. `process.env`. */
type Env = Readonly<Record<string, string | undefined>>;

const FILE = 'society.db';

/**
 * The database file: `$SOCIETY_DB` when set, else the platform's per-user data directory:
 * - Linux and other Unixes: `$XDG_DATA_HOME/society-studio/society.db` (default `~/.local/share`)
 * - macOS: `~/Library/Application Support/Society Studio/society.db`
 * - Windows: `%APPDATA%\Society Studio\society.db`
 *
 * Paths are built with the target platform's separators, so the result can be checked
 * anywhere. The directory is created by `openRunStore`, not here.
 */
export function defaultDatabasePath(
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.SOCIETY_DB) return env.SOCIETY_DB;
  if (platform === 'win32') {
    const home = env.USERPROFILE || env.HOME || homedir();
    const appData = env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, 'Society Studio', FILE);
  }
  const home = env.HOME || homedir();
  if (platform === 'darwin') {
    return path.posix.join(home, 'Library', 'Application Support', 'Society Studio', FILE);
  }
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  const dataHome =
    xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'share');
  return path.posix.join(dataHome, 'society-studio', FILE);
}
