/**
 * How long the `society` command takes to start: `society --version` and `society validate` of a
 * template, each as a whole process, next to `node -e 0` (Node's own start-up, the floor). Runs
 * are interleaved (A B C A B C …) so a drift in the machine's speed touches each command alike.
 * Measured twice: as users run it (Node's compile cache filled by a first, uncounted run) and with
 * the cache turned off (every source stripped and parsed again). Then `npm run studio` as a user
 * types it, from the command to the printed address, its editor already built (a second start):
 * aim ≤ 2 s. Figures only; nothing is asserted. Runs alone: `node bench/startup.ts`.
 */
import { spawn, spawnSync } from 'node:child_process';
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
  /** `npm run studio`, second start: seconds from the command to the printed address. */
  studio: { seconds: number[]; medianS: number } | { error: string };
  elapsedMs: number;
}

/** The aim for `npm run studio`'s second start, in seconds (issue: build once, reuse). */
export const STUDIO_START_AIM_S = 2;

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

/**
 * One `npm run studio` in its own workspace and run store: seconds until it prints its address.
 * The studio is stopped as Ctrl-C stops it. Rejects when it exits first or takes over a minute.
 */
function studioStart(dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      'npm',
      ['run', 'studio', '--', '--port', '0', '--workspace', dir, '--db', join(dir, 'runs.db')],
      // Its own process group, stopped as a terminal's Ctrl-C stops npm and the studio together.
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        // Already gone.
      }
    };
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error('npm run studio printed no address within a minute'));
    }, 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (/Society Studio is running at /.test(out)) {
        const seconds = (performance.now() - started) / 1000;
        clearTimeout(timer);
        child.once('close', () => resolve(seconds));
        stop();
      }
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!/Society Studio is running at /.test(out))
        reject(new Error(`npm run studio exited ${code}: ${err.trim().split('\n').at(-1)}`));
    });
  });
}

/** `npm run studio` started `runs` times after one uncounted start (which builds the editor if its sources changed). */
async function measureStudio(runs: number): Promise<StartupBenchResult['studio']> {
  const dir = mkdtempSync(join(tmpdir(), 'society-bench-studio-'));
  try {
    await studioStart(dir);
    const seconds: number[] = [];
    for (let i = 0; i < runs; i++) seconds.push(await studioStart(dir));
    return { seconds, medianS: median(seconds) };
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
    options.log?.('npm run studio, second start, 5 runs…');
    const studio = await measureStudio(5);
    return { runs, cached, uncached, studio, elapsedMs: performance.now() - started };
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
  if ('error' in r.studio) lines.push(`  npm run studio: not measured: ${r.studio.error}`);
  else {
    const { medianS, seconds } = r.studio;
    const met = medianS <= STUDIO_START_AIM_S ? 'met' : 'NOT met';
    lines.push(
      `  npm run studio, second start (editor already built), command → address printed: median ` +
        `${medianS.toFixed(2)} s, min ${Math.min(...seconds).toFixed(2)} s of ${seconds.length}; ` +
        `aim ≤ ${STUDIO_START_AIM_S} s: ${met}`,
    );
  }
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchStartup({ log: console.log });
  for (const line of formatStartup(result)) console.log(line);
  console.log(`(start-up took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
