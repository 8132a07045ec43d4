/**
 * Each command declares itself beside its code (app/cli/commands/…/NAME.command.ts): every such
 * declaration is listed in the commands' index, so none is written and then left out of the
 * program, and every command the program offers has one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../app/cli/program.ts';
import { ROOT } from './support/cli.ts';

const COMMANDS_DIR = join(ROOT, 'app/cli/commands');

function declarations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? declarations(join(dir, entry.name))
      : entry.name.endsWith('.command.ts')
        ? [relative(COMMANDS_DIR, join(dir, entry.name))]
        : [],
  );
}

describe('society commands', () => {
  it('lists every NAME.command.ts declaration in app/cli/commands/index.ts', () => {
    const index = readFileSync(join(COMMANDS_DIR, 'index.ts'), 'utf8');
    const found = declarations(COMMANDS_DIR);
    expect(found.length).toBeGreaterThan(20);
    expect(found.filter((file) => !index.includes(`'./${file}'`))).toEqual([]);
  });

  it('offers each top-level command once, with a description', () => {
    const names = buildProgram().commands.map((c) => c.name());
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['validate', 'run', 'eval', 'world', 'nlsom']));
    for (const command of buildProgram().commands) expect(command.description()).not.toBe('');
  });
});
