/**
 * The cap on V8's young generation (its new space) in every process that runs societies: the
 * `society` command (`restartCapped`, and `npm run society`), `npm start` / `npm run studio`
 * (package.json), the desktop app's main process (`--js-flags`, main/start.ts).
 *
 * A run allocates many short-lived objects (prompts, events, HTTP bodies). By default V8 doubles
 * its new space whenever much survives a scavenge, to 64 MB and more on a 64-bit machine, and
 * keeps it for the life of the process: after a few runs most of the process's resident memory
 * is an empty young generation, not anything a run holds (bench/run-memory.ts). Two semi-spaces
 * of 8 MB keep the Artist–Critic bench's peak resident set about 40 MB lower fresh and 80 MB
 * lower after repeated runs, for no CPU time the benches can tell from noise; 4 MB ones saved no
 * more and slowed the engine's 1,000-agent fan-out by half (the README's Performance section has
 * the figures).
 *
 * Node takes the cap only when it starts (`--max-semi-space-size`): set later with
 * `v8.setFlagsFromString` it is ignored, and the growth factor V8 does read later can only keep
 * the new space from growing between event-loop turns, not within a long synchronous or
 * promise-only stretch of a run, where it grew to 64 MB all the same. So the product starts node
 * with the flag. The `society` command cannot carry it on its `#!` line (`env -S` is missing
 * from BusyBox, so Alpine's node images could not start it at all): it starts node again with
 * the flag instead (`restartCapped`).
 */

/** The semi-space size the product starts node with, in MB: the new space is two of them. */
export const SEMI_SPACE_MB = 8;

/** The Node option every entry that runs societies is started with. */
export const YOUNG_GENERATION_FLAG = `--max-semi-space-size=${SEMI_SPACE_MB}`;

/** The `--max-semi-space-size` in `args` (a command line, NODE_OPTIONS or --js-flags split), if any. */
export function launchSemiSpaceMb(args: readonly string[]): number | undefined {
  let found: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const match = /^--max[-_]semi[-_]space[-_]size(?:=(\d+))?$/.exec(args[i]!);
    if (!match) continue;
    const value = match[1] ?? args[i + 1];
    if (value !== undefined && /^\d+$/.test(value)) found = Number(value);
  }
  return found;
}

/**
 * The semi-space size, in MB, this process was started with: from node's own options, then
 * NODE_OPTIONS, then Electron's `--js-flags` (the desktop app's main process). Undefined when
 * none set it (0 also means V8's default).
 */
export function semiSpaceInForce(
  execArgv: readonly string[] = process.execArgv,
  env: Readonly<Record<string, string | undefined>> = process.env,
  argv: readonly string[] = process.argv,
): number | undefined {
  const split = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean);
  const jsFlags = argv.filter((a) => a.startsWith('--js-flags=')).map((a) => a.slice(11));
  return (
    launchSemiSpaceMb(execArgv) ??
    launchSemiSpaceMb(split(env.NODE_OPTIONS)) ??
    launchSemiSpaceMb(jsFlags.flatMap(split))
  );
}

/** "new space capped at 16 MB (--max-semi-space-size=8)", for a line of a report. */
export function describeYoungGeneration(semiSpaceMb = semiSpaceInForce()): string {
  if (!semiSpaceMb) return "new space not capped (V8's default growth)";
  return `new space capped at ${2 * semiSpaceMb} MB (--max-semi-space-size=${semiSpaceMb})`;
}

/**
 * Commands that only read, check or print (and help): they never run a society, and are over
 * before the young generation matters, so they are not started again.
 */
const READ_ONLY = new Set([
  'validate',
  'params',
  'nodes',
  'inspect',
  'diff',
  'prices',
  'providers',
  'hosts',
  'runs',
  'export',
  'show',
  'bundle',
  'help',
]);

/** Whether `society args…` may run a society (not a read-only command, not help or version). */
export function mayRunSocieties(args: readonly string[]): boolean {
  const [first] = args;
  if (first === undefined || first.startsWith('-') || READ_ONLY.has(first)) return false;
  return !args.includes('--help') && !args.includes('-h');
}

/**
 * Starts `script args…` again with the cap when it may run a society and the process was not
 * started with one (an explicit `--max-semi-space-size`, even 0 for V8's default, is kept). The
 * new node replaces this one in place (`process.execve`): the same process id, standard streams
 * and signals, so whoever started the command (a terminal, a supervisor sending SIGKILL) sees
 * one process. Does nothing where there is no `execve` (Windows: NODE_OPTIONS carries the cap
 * there); otherwise it does not return.
 */
export function restartCapped(script: string, args: readonly string[]): void {
  if (!mayRunSocieties(args) || semiSpaceInForce() !== undefined) return;
  if (typeof process.execve !== 'function') return;
  const argv = [process.execPath, YOUNG_GENERATION_FLAG, ...process.execArgv, script, ...args];
  process.execve(process.execPath, argv, process.env);
}
