/**
 * A throwaway Redis for tests and benchmarks: Debian's redis-server on 127.0.0.1 at a free
 * port, nothing saved to disk, stopped afterwards. Where the binary is absent, callers skip.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** The redis-server binary, or undefined when this machine has none. */
export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) =>
  existsSync(p),
);

export interface LocalRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL) and starts it again, empty, on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A port no one listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts redis-server and resolves once it accepts connections. `args` are more of its options
 * (`--requirepass`, `--user`, …).
 */
export async function startRedis(args: string[] = []): Promise<LocalRedis> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed');
  const port = await freePort();
  let child = await spawnRedis(port, args);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart() {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      child = await spawnRedis(port, args);
    },
    stop,
  };
}

async function spawnRedis(port: number, args: string[]): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    REDIS_SERVER!,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start: ${output}`)),
      10_000,
    );
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  child.stdout?.resume();
  return child;
}
