#!/usr/bin/env node
// The `society` command. It runs the TypeScript sources directly: Node 22.18+ and 24 strip
// types by default; Node 22.12 to 22.17 need a flag, so there we start Node again with it.
// An older Node stops at the version guard, imported first, with one line saying what to install.
import '../scripts/check-node.mjs';
import { spawnSync } from 'node:child_process';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// Node keeps the compiled (and type-stripped) sources on disk, keyed by their content, so a
// command after the first skips stripping and parsing: start-up roughly halves. NODE_COMPILE_CACHE
// chooses the folder (default: the system's temporary one), NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

if (process.features.typescript) {
  const { main } = await import('../app/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} else if (process.env.SOCIETY_STRIPPING_TYPES) {
  console.error(
    `society: this Node.js (${process.version}) cannot run TypeScript; install Node 22.18 or newer`,
  );
  process.exitCode = 2;
} else {
  const result = spawnSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit', env: { ...process.env, SOCIETY_STRIPPING_TYPES: '1' } },
  );
  process.exitCode = result.status ?? 1;
}
