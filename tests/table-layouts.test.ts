/**
 * The paper layouts are declared in one place (app/paper-tables/index.ts), which the CLI
 * and the studio both load: a layout registered anywhere else would print in `eval-show` but
 * never in the studio's Evals view. Each declared presenter loads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLE_LAYOUTS } from '../app/paper-tables/index.ts';
import { ROOT } from './support/cli.ts';

const DECLARED_IN = ['app/eval/table-presenters.ts', 'app/paper-tables/index.ts'];

/** The app's source files (tests aside) that call registerTablePresenter. */
function registering(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')))
    .filter((f) => readFileSync(path.join(ROOT, f), 'utf8').includes('registerTablePresenter('));
}

describe('paper table layouts', () => {
  it('are registered in the one module the CLI and the studio share', () => {
    expect([...registering('app'), ...registering('main')].sort()).toEqual(DECLARED_IN.sort());
  });

  it('each load a presenter', async () => {
    for (const [kind, load] of Object.entries(TABLE_LAYOUTS))
      expect(typeof (await load()), kind).toBe('function');
    expect(Object.keys(TABLE_LAYOUTS).length).toBeGreaterThan(0);
  });
});
