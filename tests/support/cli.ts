/** Runs the real `society` command in a child process (async, so in-process stubs can answer). */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
    const child = spawn(process.execPath, [BIN, ...args], {
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
