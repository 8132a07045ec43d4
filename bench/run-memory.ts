/**
 * What a run keeps: the engine-overhead society (one input → 1,000 agents → one gathering node,
 * every call answered in-process at once) run in this process, the heap measured after a full
 * collection before it, with the finished run still held, and once it is let go.
 *
 *   node bench/run-memory.ts
 *   BENCH_MEMORY_AGENTS=1000 BENCH_MEMORY_RUNS=3 node bench/run-memory.ts
 *
 * A finished run holds its events (the record a user reads, exports and resumes from) and little
 * else: its heap is set beside the size of its events written as JSON. Once let go, nothing of it
 * should stay: the heap after each run is set beside the heap before the first.
 *
 * Prints the figures; never asserts.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import { fanOutDocument } from './engine-overhead.ts';
import { isMain, machineLine, median, ZeroLatencyProvider } from './support.ts';

export interface RunMemoryResult {
  agents: number;
  calls: number;
  events: number;
  /** Heap used after a full collection before the first run, in bytes. */
  baseline: number;
  /** The heap a finished run holds (median): collected with the run referenced, minus let go. */
  held: number;
  /** The heap its events alone hold (the run let go, its events kept). */
  eventsHeld: number;
  /** Its events written as JSON, in bytes. */
  eventsJson: number;
  /** Heap used above the baseline after each run was let go and collected. */
  leftAfter: number[];
}

/** A full collection, asked for the way a test harness does (the flag, then V8's own `gc`). */
function collector(): () => Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return async () => {
    // A turn of the event loop first: what the last job touched is kept until it ends.
    await new Promise((resolve) => setImmediate(resolve));
    // Twice: what one collection frees can let the next free more (weak maps, finalizers).
    gc();
    gc();
  };
}

export async function benchRunMemory(): Promise<RunMemoryResult> {
  const agents = Number(process.env.BENCH_MEMORY_AGENTS ?? 1000);
  const runs = Math.max(1, Number(process.env.BENCH_MEMORY_RUNS ?? 3));
  const registry = await loadNodeRegistry();
  const compiled = await compileGraph(fanOutDocument(agents), registry);
  if (!compiled.ok) throw new Error('the benchmark graph does not compile');
  const gc = collector();
  const once = async () => {
    const provider = new ZeroLatencyProvider('bench');
    const run = startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: { q: 'q-value' },
      providerFor: () => provider,
      env: {},
    });
    const result = await run.result;
    if (result.status !== 'succeeded') throw new Error(`the run ${result.status}`);
    return { run, calls: provider.calls };
  };
  const heap = () => process.memoryUsage().heapUsed;
  // One run first, so the modules and the code it needs are loaded before the baseline.
  await once();
  await gc();
  const baseline = heap();
  const held: number[] = [];
  const eventsHeld: number[] = [];
  const leftAfter: number[] = [];
  let eventsJson = 0;
  let events = 0;
  let calls = 0;
  for (let i = 0; i < runs; i++) {
    let finished: Awaited<ReturnType<typeof once>> | undefined = await once();
    await gc();
    const withRun = heap();
    let kept: unknown[] | undefined = finished.run.events;
    eventsJson = Buffer.byteLength(JSON.stringify(kept));
    events = kept.length;
    calls = finished.calls;
    finished = undefined;
    await gc();
    const withEvents = heap();
    kept = undefined;
    await gc();
    const without = heap();
    held.push(withRun - without);
    eventsHeld.push(withEvents - without);
    leftAfter.push(without - baseline);
  }
  return {
    agents,
    calls,
    events,
    baseline,
    held: median(held),
    eventsHeld: median(eventsHeld),
    eventsJson,
    leftAfter,
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function formatRunMemory(r: RunMemoryResult): string[] {
  return [
    `Run memory: input → ${r.agents} agents → gather, answered in-process; ${r.calls} model calls, ${r.events} events`,
    `  a finished run holds ${mb(r.held)} of heap, its events alone ${mb(r.eventsHeld)} ` +
      `(${mb(r.eventsJson)} as JSON); the rest of the run ${mb(r.held - r.eventsHeld)} (aim: what its events need, ≤ 0.5 MB more)`,
    `  heap left after each run is let go: ${r.leftAfter.map(mb).join(', ')} above the ${mb(r.baseline)} before ` +
      '(aim: none grows from run to run)',
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatRunMemory(await benchRunMemory())) console.log(line);
}
