/**
 * The Node.js version guard (scripts/check-node.mjs): on a Node older than 22.18 every entry point
 * stops with one line naming the version needed and how to get it. The guard reads
 * SOCIETY_NODE_VERSION in place of the running version, so Node 24 can play an old Node here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.ts';

function run(args: string[], version: string) {
  return spawnSync(process.execPath, args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, SOCIETY_NODE_VERSION: version },
  });
}

describe('the Node.js version guard', () => {
  it('stops an old Node with one line naming 22.18 and where to get it', () => {
    const result = run(['scripts/check-node.mjs'], 'v20.20.2');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Node.js 22.18 or newer (this is v20.20.2)');
    expect(lines[0]).toContain('https://nodejs.org');
    expect(lines[0]).toContain('nvm install 24');
  });

  it('lets 22.18 and newer through silently, and stops 22.17 and 22.12', () => {
    for (const version of ['v22.18.0', 'v24.0.0']) {
      const result = run(['scripts/check-node.mjs'], version);
      expect(result.status, version).toBe(0);
      expect(result.stderr, version).toBe('');
    }
    expect(run(['scripts/check-node.mjs'], 'v22.17.1').status).toBe(1);
    expect(run(['scripts/check-node.mjs'], 'v22.12.0').status).toBe(1);
  });

  it('guards the society command before it tries to strip types', () => {
    const result = run([join(ROOT, 'bin/society.js'), '--version'], 'v20.20.2');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('needs Node.js 22.18 or newer'),
    ]);
  });

  it('runs first in every npm script that starts Node, vite or vitest', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      engines: { node: string };
    };
    expect(pkg.engines.node).toBe('>=22.18');
    for (const [name, script] of Object.entries(pkg.scripts)) {
      if (!/^(node|vite|vitest) /.test(script) && !script.includes('check-node')) continue;
      if (script.startsWith('node bin/society.js')) continue; // the command guards itself
      expect(script, `npm run ${name}`).toMatch(/^node scripts\/check-node\.mjs && /);
    }
    // `npm install` on an old Node refuses, naming engines.node.
    expect(readFileSync(join(ROOT, '.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
  });
});
