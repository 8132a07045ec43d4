/**
 * How long the `society` command takes to start: `society --version` and `society validate` of a
 * template, each as a whole process, next to `node -e 0` (Node's own start-up, the floor). Runs
 * are interleaved (A B C A B C …) so a drift in the machine's speed touches each command alike.
 * Measured twice: as users run it (Node's compile cache filled by a first, uncounted run) and with
 * the cache turned off (every source stripped and parsed again). Figures only; nothing is
 * asserted. Runs alone: `node bench/startup.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain, machineLine, median, pad } from './support.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
/** A template with an image input, an expert and a vote: a fair amount of validation. */
export const STARTUP_TEMPLATE = 'templates/nlsom-vqa.society.json';

export interface StartupFigures {
  label: string;
  /** Wall-clock seconds of each counted run. */
  seconds: number[];
  medianS: number;
  minS: number;
  /** This command's median over `node -e 0`'s. */
  ratio: number;
}

export interface StartupBenchResult {
  runs: number;
  /** With Node's compile cache (the default), then with it off. */
  cached: StartupFigures[];
  uncached: StartupFigures[];
  elapsedMs: number;
}

export interface StartupBenchOptions {
  /** Counted runs of each command. Default 9. */
  runs?: number;
  log?: (line: string) => void;
}

interface Command {
  label: string;
  args: string[];
}

const COMMANDS: Command[] = [
  { label: 'node -e 0', args: ['-e', '0'] },
  { label: 'society --version', args: [BIN, '--version'] },
  { label: `society validate ${STARTUP_TEMPLATE}`, args: [BIN, 'validate', STARTUP_TEMPLATE] },
];

/** One run of `args` under node; its wall-clock seconds. A failed run ends the benchmark. */
function timeOnce(command: Command, env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, command.args, { cwd: ROOT, env, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) {
    throw new Error(`${command.label} exited ${result.status}: ${result.stderr.trim()}`);
  }
  return seconds;
}

function measure(runs: number, env: NodeJS.ProcessEnv): StartupFigures[] {
  const seconds = COMMANDS.map(() => [] as number[]);
  // One uncounted round: fills the compile cache (when on) and the file system's cache.
  for (const command of COMMANDS) timeOnce(command, env);
  for (let i = 0; i < runs; i++) {
    for (const [c, command] of COMMANDS.entries()) seconds[c]!.push(timeOnce(command, env));
  }
  const floor = median(seconds[0]!);
  return COMMANDS.map((command, c) => {
    const own = seconds[c]!;
    const medianS = median(own);
    return {
      label: command.label,
      seconds: own,
      medianS,
      minS: Math.min(...own),
      ratio: medianS / floor,
    };
  });
}

export async function benchStartup(options: StartupBenchOptions = {}): Promise<StartupBenchResult> {
  const started = performance.now();
  const runs = options.runs ?? 9;
  const cacheDir = mkdtempSync(join(tmpdir(), 'society-compile-cache-'));
  try {
    const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete base.NODE_DISABLE_COMPILE_CACHE;
    options.log?.(`start-up with the compile cache, ${runs} runs each…`);
    const cached = measure(runs, { ...base, NODE_COMPILE_CACHE: cacheDir });
    options.log?.(`start-up without the compile cache, ${runs} runs each…`);
    const uncached = measure(runs, { ...base, NODE_DISABLE_COMPILE_CACHE: '1' });
    return { runs, cached, uncached, elapsedMs: performance.now() - started };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

export function formatStartup(r: StartupBenchResult): string[] {
  const lines = [`CLI start-up (whole process, ${r.runs} interleaved runs each; seconds)`];
  const table = (title: string, rows: StartupFigures[]) => {
    lines.push(`  ${title}`);
    for (const row of rows) {
      lines.push(
        `    ${pad(row.label, 58)} median ${row.medianS.toFixed(3)}  min ${row.minS.toFixed(3)}  ` +
          `${row.ratio.toFixed(1)}× node -e 0`,
      );
    }
  };
  table('with the compile cache (as users run it, after a first run)', r.cached);
  table('without it (NODE_DISABLE_COMPILE_CACHE=1: every source stripped and parsed)', r.uncached);
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchStartup({ log: console.log });
  for (const line of formatStartup(result)) console.log(line);
  console.log(`(start-up took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
