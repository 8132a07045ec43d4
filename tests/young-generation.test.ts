/**
 * Every process that runs societies starts node with the young generation capped
 * (app/memory/young-generation.ts): the `society` command as its `#!` line starts it, `npm start`
 * / `npm run studio` as package.json starts them, the desktop app's main process. A probe
 * (tests/support/new-space-probe.mjs), loaded through NODE_OPTIONS, allocates short-lived objects
 * once the command is done and reports how large V8's new space grew.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  describeYoungGeneration,
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

/** Runs `command args…` from the repository with the probe loaded; the probe's figure for `script`. */
function probed(command: string, args: string[], script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        // `#!/usr/bin/env -S node …` finds the node running these tests.
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
      else resolve(Number(line.split(' ')[1]));
    });
  });
}

describe('the young generation of a process that runs societies', () => {
  it.skipIf(process.platform === 'win32')(
    'stays capped in the society command started by its #! line, and grows without it',
    async () => {
      const args = ['validate', 'templates/nlsom-vqa.society.json'];
      const [asInstalled, plainNode] = await Promise.all([
        probed(BIN, args, BIN),
        probed(process.execPath, [BIN, ...args], BIN),
      ]);
      expect(asInstalled).toBeLessThanOrEqual(CAP);
      // The probe's allocations do grow an uncapped new space: the cap above is the #! line's.
      expect(plainNode).toBeGreaterThan(CAP);
    },
  );

  it('stays capped in npm run studio, started as package.json starts it', async () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    // "node scripts/check-node.mjs && node --max-semi-space-size=8 scripts/launch.mjs studio"
    const [node, ...args] = (scripts.studio as string).split('&&').at(-1)!.trim().split(/\s+/);
    expect(node).toBe('node');
    const launch = path.join(ROOT, 'scripts', 'launch.mjs');
    const started = args.map((a) => (a === 'scripts/launch.mjs' ? launch : a));
    expect(await probed(process.execPath, [...started, '--help'], launch)).toBeLessThanOrEqual(CAP);
    // `npm start` and `npm run society` are started the same way.
    for (const name of ['start', 'society']) expect(scripts[name]).toContain(YOUNG_GENERATION_FLAG);
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
