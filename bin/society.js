#!/usr/bin/env node
// The `society` command. Node 22.18+ and 24 run the TypeScript sources directly (type stripping).
import { main } from '../app/cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
