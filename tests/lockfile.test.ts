/**
 * `npm install` leaves package-lock.json as committed: npm rewrites the lock when what it finds
 * in the installed packages (an install script, a native build file) disagrees with it. The
 * hidden lockfile npm writes into node_modules records what it found at the last install.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.ts';

type Lock = { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Lock;
const hidden = join(ROOT, 'node_modules/.package-lock.json');

describe('package-lock.json', () => {
  it.skipIf(!existsSync(hidden))(
    'says which packages have install scripts as npm finds them',
    () => {
      const committed = read(join(ROOT, 'package-lock.json')).packages;
      const installed = read(hidden).packages;
      const differences = Object.entries(installed)
        .filter(
          ([path, entry]) =>
            committed[path] && !!committed[path].hasInstallScript !== !!entry.hasInstallScript,
        )
        .map(([path]) => path);
      expect(differences).toEqual([]);
      // Every installed package is in the committed lock at the same version.
      const stale = Object.entries(installed)
        .filter(([path, entry]) => committed[path]?.version !== entry.version)
        .map(([path]) => path);
      expect(stale).toEqual([]);
    },
  );
});
