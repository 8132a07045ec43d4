/**
 * What `society` loads before it answers: `--version` and `--help` load no command's code, and
 * `validate` loads only what checking a document needs: no model client, image library,
 * database, state-machine runtime or terminal display. (How long start-up takes is measured by
 * `npm run bench`, never here.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.ts';

const BIN = join(ROOT, 'bin/society.js');
const dir = mkdtempSync(join(tmpdir(), 'society-startup-'));

/** Records the URL of every module loaded, into the file named by SOCIETY_LOADED_MODULES. */
const RECORDER = `
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => writeFileSync(process.env.SOCIETY_LOADED_MODULES, loaded.join('\\n')));
`;

/** The packages (and our own modules, by path) loaded while `society args…` runs. */
function loadedBy(args: string[]): { code: number | null; stdout: string; modules: string[] } {
  const out = join(dir, `${args.join('-').replaceAll(/\W+/g, '-')}.txt`);
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(RECORDER)}`, BIN, ...args],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SOCIETY_LOADED_MODULES: out } },
  );
  const modules = readFileSync(out, 'utf8')
    .split('\n')
    .map((url) => url.replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, '$1'));
  return { code: result.status, stdout: result.stdout, modules };
}

/** What a command that answers at once must never load. */
const HEAVY = [
  'openai',
  '@huggingface/inference',
  'sharp',
  'better-sqlite3',
  'xstate',
  'log-update',
  'liquidjs',
  'zod',
];

describe('society start-up', () => {
  it('answers --version and --help without loading any command', () => {
    for (const args of [['--version'], ['--help'], ['run', '--help']]) {
      const { code, stdout, modules } = loadedBy(args);
      expect(code).toBe(0);
      expect(stdout).not.toBe('');
      expect(HEAVY.filter((name) => modules.includes(name))).toEqual([]);
      // Only the declarations (each command's NAME.command.ts and their index) load, never the
      // code a command runs.
      expect(
        modules.filter(
          (m) => m.includes('/app/cli/commands/') && !/(\.command|\/index)\.ts$/.test(m),
        ),
      ).toEqual([]);
      expect(modules.some((m) => m.endsWith('/app/cli/commands/run.command.ts'))).toBe(true);
    }
  });

  it('validates a document with the compiler and node specs only', () => {
    const { code, stdout, modules } = loadedBy(['validate', 'templates/nlsom-vqa.society.json']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/valid/);
    const heavy = HEAVY.filter((name) => name !== 'zod' && name !== 'liquidjs');
    expect(heavy.filter((name) => modules.includes(name))).toEqual([]);
    // The terminal's redaction (providers/secrets.ts), the store's default path, the key-shape
    // check validate warns with (store/secrets.ts, pure) and the token counting a budget
    // check's estimate uses (providers/text.ts, tokens.ts) are all of the providers and the
    // store that load.
    expect(
      modules.filter(
        (m) =>
          /\/app\/(runtime|store|providers)\//.test(m) &&
          !/\/app\/(providers\/(secrets|text|tokens)|store\/(paths|secrets))\.ts$/.test(m),
      ),
    ).toEqual([]);
  });
});
