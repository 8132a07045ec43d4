/**
 * `society run` stopped by Ctrl-C (SIGINT) or SIGTERM while a node's rules compute for seconds:
 * the computation runs off the main thread, so the signal is heard at once, the run ends
 * within a second or two, and the store records it as cancelled, not left running.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../app/store/index.ts';
import { ROOT } from './support/cli.ts';
import { heavyStateDocument } from './support/heavy-state.ts';

const BIN = path.join(ROOT, 'bin/society.js');
const dir = mkdtempSync(path.join(tmpdir(), 'society-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the heavy run, sends `signal` once the rules are computing, and times the exit. */
async function interrupted(signal: NodeJS.Signals) {
  const file = path.join(dir, `heavy-${signal}.society.json`);
  const db = path.join(dir, `${signal}.db`);
  writeFileSync(file, JSON.stringify(heavyStateDocument()));
  const child = spawn(process.execPath, [BIN, 'run', file, '--simulate', '--db', db], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // The run is recorded before it starts; then its rules take ten seconds.
  for (let waited = 0; waited < 10_000; waited += 50) {
    const store = openRunStore(db);
    const running = store.listRuns({}).length > 0;
    store.close();
    if (running) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sent = performance.now();
  child.kill(signal);
  const code = await exited;
  const ms = performance.now() - sent;
  const store = openRunStore(db);
  const runs = store.listRuns({});
  store.close();
  return { code, ms, stderr, runs };
}

describe('society run, interrupted while rules compute', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`ends within two seconds of ${signal}, the run recorded as cancelled`, async () => {
      const { code, ms, stderr, runs } = await interrupted(signal);
      console.log(`${signal}: society run exited ${Math.round(ms)} ms after the signal`);
      expect(stderr).toContain('society: cancelling the run');
      expect(code).toBe(1);
      expect(ms).toBeLessThan(2_000);
      expect(runs).toHaveLength(1);
      expect(runs[0]!.status).toBe('cancelled');
    });
  }
});
