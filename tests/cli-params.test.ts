/**
 * Template parameters from the terminal: `--set` changes what runs (a mindstorm's rounds and
 * members, so its call count), a bad value or an unknown name ends the command with one line,
 * and a run's values stay with it when it is resumed or forked.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../app/store/index.ts';
import { ROOT, societyHere } from './support/cli.ts';

const DOC = 'docs/examples/parameters.society.json';
const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
/** Monarchy: the organizer and every member each round, then the summary and the leader. */
const calls = (rounds: number, members: number) => rounds * (1 + members) + 2;

let db: string;
beforeAll(() => {
  db = join(mkdtempSync(join(tmpdir(), 'society-params-')), 'runs.db');
});

async function runJson(args: string[]) {
  const result = await societyHere(['run', DOC, '--simulate', '--json', '-q', '--db', db, ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as {
    runId: string;
    usage: { calls: number };
    params: Record<string, unknown>;
  };
}

describe('society run --set', () => {
  it('changes the rounds and members a run makes, and reports the values used', async () => {
    const defaults = await runJson([]);
    expect(defaults.usage.calls).toBe(calls(2, 3));
    expect(defaults.params).toEqual({
      rounds: 2,
      structure: 'monarchy',
      members: ['a historian', 'an engineer', 'a poet'],
      tone: 'plain',
    });
    const set = await runJson(['--set', 'rounds=4', '--set', 'members=a judge,a nurse']);
    expect(set.usage.calls).toBe(calls(4, 2));
    expect(set.params).toMatchObject({ rounds: 4, members: ['a judge', 'a nurse'] });
    // The text parameter reaches the members' prompts through {{ params.tone }}.
    const show = await societyHere(['show', set.runId, '--json', '--db', db]);
    expect(show.stdout).toContain('Answer in a plain tone');
  });

  it('refuses an unknown name or a bad value with one line and exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['--set', 'rounds=abc'], 'society: --set rounds=abc: rounds is a whole number from 1 to 5'],
      [['--set', 'rounds=9'], 'society: --set rounds=9: rounds is a whole number from 1 to 5'],
      [
        ['--set', 'roundz=3'],
        'society: --set roundz=3: no parameter "roundz" (parameters: rounds, structure, members, tone)',
      ],
      [
        ['--set', 'structure=anarchy'],
        'society: --set structure=anarchy: structure is one of monarchy, democracy',
      ],
      [['--set', 'rounds'], 'society: --set expects NAME=VALUE, got "rounds"'],
    ];
    for (const [args, line] of cases) {
      for (const command of [
        ['run', DOC, '--estimate'],
        ['validate', DOC],
        ['inspect', DOC],
      ]) {
        const result = await societyHere([...command, ...args]);
        expect(result.code).toBe(2);
        expect(result.stderr.trim()).toBe(line);
      }
    }
  });

  it('estimates and inspects the bound graph', async () => {
    const estimate = await societyHere(['run', DOC, '--estimate', '--json', '--set', 'rounds=5']);
    expect(estimate.code).toBe(0);
    const report = JSON.parse(estimate.stdout);
    expect(report.params.rounds).toBe(5);
    expect(report.total.calls).toBe(calls(5, 3));
    const inspect = await societyHere(['inspect', DOC, '--set', 'rounds=4']);
    expect(inspect.stdout).not.toContain('$param');
    const listed = await societyHere(['params', DOC]);
    expect(listed.stdout).toContain('rounds (integer, default 2): a whole number from 1 to 5');
  });
});

describe('a run keeps its parameters', () => {
  it('when forked', async () => {
    const parent = await runJson(['--set', 'rounds=3', '--set', 'members=x,y']);
    const fork = await societyHere(['fork', parent.runId, '--at', '5', '--json', '-q', '--db', db]);
    expect(fork.code, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout);
    expect(forked.params).toMatchObject({ rounds: 3, members: ['x', 'y'] });
    expect(forked.usage.calls).toBe(calls(3, 2));
  });

  it('when resumed after its process died', async () => {
    // Held before its first node (--step with no answer), then killed: an interrupted run.
    const child = spawn(
      process.execPath,
      [BIN, 'run', DOC, '--simulate', '--step', '--set', 'rounds=3', '--db', db],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    await new Promise<void>((resolve) => {
      let seen = '';
      const look = (chunk: Buffer) => {
        seen += chunk;
        if (seen.includes('paused')) resolve();
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGKILL');
    await exited;
    const store = openRunStore(db);
    const [latest] = store.listRuns({ limit: 1 });
    store.close();
    const resumed = await societyHere(['resume', latest!.id, '--json', '-q', '--db', db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout);
    expect(result.params.rounds).toBe(3);
    expect(result.usage.calls).toBe(calls(3, 3));
  });
});
