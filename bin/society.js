#!/usr/bin/env node
// The `society` command. It runs the TypeScript sources directly (Node 22.18 and newer strip
// types by default). An older Node stops at the version guard, imported first, with one line
// saying what to install.
import '../scripts/check-node.mjs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// Node keeps the compiled (and type-stripped) sources on disk, keyed by their content, so a
// command after the first skips stripping and parsing: start-up roughly halves. NODE_COMPILE_CACHE
// chooses the folder (default: the system's temporary one), NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

// A command that may run a society starts node again, in place, with V8's young generation
// capped (app/memory/young-generation.ts), before it loads anything else. (Imported after the
// version guard: an older Node cannot load TypeScript.)
const { restartCapped } = await import('../app/memory/young-generation.ts');
restartCapped(fileURLToPath(import.meta.url), process.argv.slice(2));

const { main } = await import('../app/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
