/**
 * `society worker` processes for the queue tests: started against a Redis without the machine's
 * OpenAI settings, each resolving once it takes jobs, and stopped after.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT } from './cli.ts';

const BIN = fileURLToPath(new URL('../../bin/society.js', import.meta.url));

export interface Worker {
  child: ChildProcess;
  /** What it printed on stdout, a line an entry. */
  lines: string[];
}

/** Every worker the test file started, in order, until `stopWorkers`. */
export const workers: ChildProcess[] = [];

/** Starts `society worker --queue URL --concurrency 2 ARGS` with `env` over this process's. */
export function startWorker(url: string, args: string[], env: NodeJS.ProcessEnv): Promise<Worker> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete base.OPENAI_API_KEY;
  delete base.OPENAI_BASE_URL;
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--queue', url, '--concurrency', '2', ...args],
    { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  workers.push(child);
  const lines: string[] = [];
  child.stdout!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('taking eval jobs')) resolve({ child, lines });
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${stderr}`)));
  });
}

/** Stops a worker (SIGTERM: a clean stop) and waits for it. */
export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Stops every worker still running. */
export async function stopWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map(stopWorker));
}
