/**
 * The README's commands run as written. Every ```sh block of README.md runs, in order, in a
 * scratch folder of its own (with `templates/` and `docs/` linked in) and against a run store of its own, so
 * nothing leaks into the checkout or a developer's store; each command must exit 0.
 *
 * Conventions the README follows for this:
 * - a block that cannot run here (it needs a key, a server of yours, or runs until stopped) has
 *   `<!-- not run by tests/readme-commands.test.ts: REASON -->` on the line before it;
 * - `npm install` is taken as done (the suite runs in an installed checkout);
 * - `3f2a` stands for the first run the README's commands recorded, `9c1d` for the latest.
 * `society` commands run in this process through `main(argv)`, so a block costs no start-up.
 */
import { globSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../app/store/index.ts';
import { ROOT, societyHere } from './support/cli.ts';

const SKIP = /^<!-- not run by tests\/readme-commands\.test\.ts: (.+) -->$/;

interface Command {
  /** README line the command starts on. */
  line: number;
  text: string;
  /** Why the block is not run, when it is marked. */
  skip?: string;
}

/** The commands of every ```sh block: continuation lines joined, comments dropped. */
function readmeCommands(readme: string): Command[] {
  const lines = readme.split('\n');
  const commands: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const skip = SKIP.exec(lines[i - 1] ?? '')?.[1];
    let current: Command | undefined;
    for (i++; i < lines.length && lines[i] !== '```'; i++) {
      const text = lines[i]!;
      if (!current) {
        if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
        current = { line: i + 1, text: '', ...(skip ? { skip } : {}) };
      }
      const continued = text.endsWith('\\');
      current.text += `${continued ? text.slice(0, -1) : text} `;
      if (!continued) {
        current.text = stripComment(current.text).trim();
        commands.push(current);
        current = undefined;
      }
    }
  }
  return commands;
}

/** A shell line without its trailing `# comment` (a `#` inside quotes stays). */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/**
 * The words of a shell line: quotes removed (also inside a word, as in `name="a b"`), `*`
 * expanded against `cwd` in unquoted words.
 */
function words(line: string, cwd: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?:"[^"]*"|'[^']*'|[^\s"']+)+/g)) {
    const word = m[0];
    const text = word.replace(/"([^"]*)"|'([^']*)'/g, (_, d, q) => d ?? q);
    if (!/["']/.test(word) && word.includes('*')) out.push(...globSync(word, { cwd }).sort());
    else out.push(text);
  }
  return out;
}

const commands = readmeCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const runnable = commands.filter((c) => !c.skip && !/^npm install\b/.test(c.text));

describe('README.md commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'society-readme-'));
  const db = join(dir, 'runs.db');
  const saved = { ...process.env };
  const cwd = process.cwd();

  beforeAll(() => {
    symlinkSync(join(ROOT, 'templates'), join(dir, 'templates'));
    symlinkSync(join(ROOT, 'docs'), join(dir, 'docs'));
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN'])
      delete process.env[name];
    process.env.SOCIETY_DB = db;
    process.env.SOCIETY_WORKSPACE = join(dir, 'workspace');
    process.env.NO_COLOR = '1';
    process.chdir(dir);
  });
  afterAll(() => {
    process.chdir(cwd);
    process.env = saved;
  });

  it('holds commands, and marks every block it does not run with a reason', () => {
    expect(runnable.length).toBeGreaterThan(10);
    for (const c of commands.filter((command) => command.skip))
      expect(c.skip, `README.md:${c.line}`).toMatch(/\w/);
  });

  /** The ids `3f2a` (first recorded run) and `9c1d` (latest) stand for. */
  function runIds(): { first?: string; latest?: string } {
    const store = openRunStore(db);
    try {
      const runs = store.listRuns({ limit: 1000 });
      return { first: runs.at(-1)?.id, latest: runs[0]?.id };
    } finally {
      store.close();
    }
  }

  it.each(runnable.map((c) => [c.line, c.text, c] as const))(
    'README.md:%i  %s',
    async (_line, _text, command) => {
      const argv = words(command.text, dir);
      const start = argv[0] === 'npx' ? 1 : 0;
      expect(
        argv[start],
        `README.md:${command.line} runs "${argv[0]}"; mark its block if it cannot run here`,
      ).toBe('society');
      const ids = runIds();
      const args = argv
        .slice(start + 1)
        .map((word) => (word === '3f2a' ? ids.first! : word === '9c1d' ? ids.latest! : word));
      const result = await societyHere(args);
      const said = result.stderr.split('\n').filter((l) => l.startsWith('society:'));
      expect(result.code, `README.md:${command.line}: ${said.join(' / ')}`).toBe(0);
    },
  );
});
