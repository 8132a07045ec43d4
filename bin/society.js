#!/usr/bin/env -S node --max-semi-space-size=8
// The `society` command. It runs the TypeScript sources directly (Node 22.18 and newer strip
// types by default). An older Node stops at the version guard, imported first, with one line
// saying what to install.
//
// The `#!` line caps V8's young generation (app/memory/young-generation.ts, YOUNG_GENERATION_FLAG):
// `env -S` passes the option on Linux and macOS, and npm's Windows shims copy it from this line.
import '../scripts/check-node.mjs';
import module from 'node:module';

// Node keeps the compiled (and type-stripped) sources on disk, keyed by their content, so a
// command after the first skips stripping and parsing: start-up roughly halves. NODE_COMPILE_CACHE
// chooses the folder (default: the system's temporary one), NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

const { main } = await import('../app/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
