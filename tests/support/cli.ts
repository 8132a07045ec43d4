/** Runs the real `society` command in a child process (async, so in-process stubs can answer). */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { YOUNG_GENERATION_FLAG } from '../../app/memory/young-generation.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/society.js', import.meta.url));
/** Tests never touch a developer's own run store: runs go to a throwaway database. */
export const TEST_DB = join(mkdtempSync(join(tmpdir(), 'society-db-')), 'runs.db');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `society args…`; `stdin`, when given, is piped in (for the terminal debugger). */
export function society(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const baseEnv = { ...process.env };
    // Tests decide which keys exist; never inherit a developer's real ones.
    delete baseEnv.OPENAI_API_KEY;
    delete baseEnv.OPENAI_BASE_URL;
    delete baseEnv.HF_TOKEN;
    // Started with the cap the command would start itself again with (restartCapped): the
    // same process, without a second start-up per call.
    const child = spawn(process.execPath, [YOUNG_GENERATION_FLAG, BIN, ...args], {
      cwd: ROOT,
      env: { ...baseEnv, SOCIETY_DB: TEST_DB, ...env, NO_COLOR: '1' },
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `society args…` in this process, for tests that check many refusals: the same `main` the
 * command runs, without a process start-up each. Output is captured as the terminal would see it
 * (scrubbed of keys), and the exit code is returned. `env`, when given, is set for the call only
 * (undefined removes a variable), and then, as `society` does, the developer's own keys are
 * left out too.
 */
export async function societyHere(
  args: string[],
  env?: Record<string, string | undefined>,
): Promise<CliResult> {
  const { main } = await import('../../app/cli/main.ts');
  const saved = { ...process.env };
  if (env) {
    for (const [name, value] of Object.entries({
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      HF_TOKEN: undefined,
      ...env,
    })) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  let stdout = '';
  let stderr = '';
  const capture = (stream: NodeJS.WriteStream, append: (text: string) => void) => {
    const original = stream.write;
    stream.write = ((chunk: unknown) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      return true;
    }) as NodeJS.WriteStream['write'];
    return () => {
      stream.write = original;
    };
  };
  const restore = [
    capture(process.stdout, (t) => {
      stdout += t;
    }),
    capture(process.stderr, (t) => {
      stderr += t;
    }),
  ];
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.exitCode = previous;
    for (const undo of restore) undo();
    if (env) process.env = saved;
  }
}

/**
 * `society args…` as the spawned command would run it (the test run store, no colour, none of
 * the developer's keys, `env` on top), but in this process: for tests of what a command does,
 * where a process start-up per call was most of the time. Tests that type on stdin, kill the
 * command or check the binary itself use `society`.
 */
export function societyInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return societyHere(args, { SOCIETY_DB: TEST_DB, NO_COLOR: '1', ...env });
}
