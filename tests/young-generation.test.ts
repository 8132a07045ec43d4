/**
 * Every process that runs societies starts node with the young generation capped
 * (app/memory/young-generation.ts): the `society` command, which starts node again in place with
 * the cap when it may run a society, `npm start`
 * / `npm run studio` as package.json starts them, the desktop app's main process. A probe
 * (tests/support/new-space-probe.mjs), loaded through NODE_OPTIONS, allocates short-lived objects
 * once the command is done and reports how large V8's new space grew.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  describeYoungGeneration,
  mayRunSocieties,
  SEMI_SPACE_MB,
  semiSpaceInForce,
  YOUNG_GENERATION_FLAG,
} from '../app/memory/young-generation.ts';
import { electronArguments } from '../main/start.ts';
import { ROOT } from './support/cli.ts';

const PROBE = pathToFileURL(
  fileURLToPath(new URL('./support/new-space-probe.mjs', import.meta.url)),
).href;
const CAP = 2 * SEMI_SPACE_MB * 1024 * 1024;
const BIN = path.join(ROOT, 'bin', 'society.js');

/**
 * Runs `command args…` from the repository with the probe loaded: the probe's figure for
 * `script`, and whether the process it reported from is the one started.
 */
function probed(
  command: string,
  args: string[],
  script: string,
): Promise<{ newSpace: number; sameProcess: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        // `#!/usr/bin/env node` finds the node running these tests.
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
        NODE_OPTIONS: `--import=${PROBE}`,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stderr.split('\n').find((l) => l.startsWith('new-space ') && l.endsWith(script));
      if (code !== 0 || !line) reject(new Error(`${command} exited with ${code}:\n${stderr}`));
      else {
        const [, bytes, pid] = line.split(' ');
        resolve({ newSpace: Number(bytes), sameProcess: Number(pid) === child.pid });
      }
    });
  });
}

describe('the young generation of a process that runs societies', () => {
  it.skipIf(process.platform === 'win32')(
    'is capped in a society command that runs a society, however it is started, in the same process',
    async () => {
      const run = ['run', 'templates/tie-judge.society.json', '--simulate', '-q', '--json'];
      const db = ['--db', path.join(mkdtempSync(path.join(tmpdir(), 'society-yg-')), 'runs.db')];
      const [asInstalled, plainNode, readOnly] = await Promise.all([
        probed(BIN, [...run, ...db], BIN),
        probed(process.execPath, [BIN, ...run, ...db], BIN),
        probed(process.execPath, [BIN, 'validate', 'templates/nlsom-vqa.society.json'], BIN),
      ]);
      expect(asInstalled).toEqual({ newSpace: expect.any(Number), sameProcess: true });
      expect(asInstalled.newSpace).toBeLessThanOrEqual(CAP);
      // Started by a plain `node`: started again in place, the same process id for whoever
      // waits on it or stops it.
      expect(plainNode.sameProcess).toBe(true);
      expect(plainNode.newSpace).toBeLessThanOrEqual(CAP);
      // A read-only command is not started again: its new space grows with the probe's
      // allocations, so the cap above is the restart's.
      expect(readOnly.newSpace).toBeGreaterThan(CAP);
    },
  );

  it('starts again only commands that may run a society', () => {
    expect(mayRunSocieties(['run', 'x.society.json'])).toBe(true);
    expect(mayRunSocieties(['serve', 'x.society.json'])).toBe(true);
    expect(mayRunSocieties(['worker', '--redis', 'redis://x'])).toBe(true);
    expect(mayRunSocieties(['eval', 'show', 'e1'])).toBe(true);
    expect(mayRunSocieties(['validate', 'x.society.json'])).toBe(false);
    expect(mayRunSocieties(['runs'])).toBe(false);
    expect(mayRunSocieties(['run', '--help'])).toBe(false);
    expect(mayRunSocieties(['--version'])).toBe(false);
    expect(mayRunSocieties([])).toBe(false);
  });

  it('stays capped in npm run studio, started as package.json starts it', async () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    // "node scripts/check-node.mjs && node --max-semi-space-size=8 scripts/launch.mjs studio"
    const [node, ...args] = (scripts.studio as string).split('&&').at(-1)!.trim().split(/\s+/);
    expect(node).toBe('node');
    const launch = path.join(ROOT, 'scripts', 'launch.mjs');
    const started = args.map((a) => (a === 'scripts/launch.mjs' ? launch : a));
    const studio = await probed(process.execPath, [...started, '--help'], launch);
    expect(studio.newSpace).toBeLessThanOrEqual(CAP);
    // `npm start` is started the same way (`npm run society` starts the command, which caps itself).
    expect(scripts.start).toContain(YOUNG_GENERATION_FLAG);
  });

  it("gives the desktop app's main process the same cap", () => {
    const argv = ['electron', ...electronArguments(['--workspace', 'here'])];
    expect(semiSpaceInForce([], {}, argv)).toBe(SEMI_SPACE_MB);
    expect(argv.slice(-2)).toEqual(['--workspace', 'here']);
  });

  it('reads the cap a process was started with, from node, NODE_OPTIONS or --js-flags', () => {
    expect(semiSpaceInForce(['--max-semi-space-size=16'], {}, [])).toBe(16);
    expect(semiSpaceInForce([], { NODE_OPTIONS: '--inspect --max_semi_space_size 2' }, [])).toBe(2);
    expect(semiSpaceInForce(['--max-old-space-size=512'], {}, ['node', 'x.js'])).toBeUndefined();
    expect(describeYoungGeneration(4)).toBe('new space capped at 8 MB (--max-semi-space-size=4)');
    expect(describeYoungGeneration(undefined)).toBe("new space not capped (V8's default growth)");
  });
});
