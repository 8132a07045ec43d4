/**
 * Loaded into a `society` process a benchmark starts (`node --import bench/process-probe.ts …`):
 * it appends what the process has used since the last report (CPU, user and system; the longest
 * event-loop stall) as one JSON line to the file SOCIETY_BENCH_PROBE names, on SIGUSR2 and at
 * exit. The benchmark reads those lines (`readProbe`) to say what each process spent.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { type EventLoopUtilization, monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** One report: milliseconds since the previous one. */
export interface ProbeReport {
  pid: number;
  wallMs: number;
  userMs: number;
  systemMs: number;
  /** The longest time the event loop was blocked, and its 99th percentile. */
  loopMaxMs: number;
  loopP99Ms: number;
  /**
   * The share of the time the event loop was busy (running code, or waiting on a synchronous
   * call such as a disk sync): near 1, the process is a bottleneck whatever its CPU says.
   */
  loopBusy: number;
}

/** The reports in `file`, oldest first; none when it does not exist yet. */
export function readProbe(file: string): ProbeReport[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ProbeReport);
}

const file = process.env.SOCIETY_BENCH_PROBE;
if (file) {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // The first report counts from the process's start, loading included.
  let cpu: NodeJS.CpuUsage = { user: 0, system: 0 };
  let at = 0;
  let busy: EventLoopUtilization | undefined;
  const report = () => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const line: ProbeReport = {
      pid: process.pid,
      wallMs: now - at,
      userMs: used.user / 1000,
      systemMs: used.system / 1000,
      loopMaxMs: loop.max / 1e6,
      loopP99Ms: loop.percentile(99) / 1e6,
      loopBusy: performance.eventLoopUtilization(busy).utilization,
    };
    busy = performance.eventLoopUtilization();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    cpu = process.cpuUsage();
    at = now;
    loop.reset();
  };
  process.on('SIGUSR2', report);
  process.on('exit', report);
}
