/**
 * `npm run bench`: every benchmark, then one compact report. Figures only; nothing is asserted.
 * Each benchmark also runs alone: `node bench/engine-overhead.ts`, `node bench/tool-overhead.ts`, `node bench/parallel-agents.ts`,
 * `node bench/artist-critic.ts`, `node bench/itcma.ts`, `node bench/store.ts`, `node bench/startup.ts`, `node bench/editor.ts`,
 * `node bench/run-memory.ts`, `node bench/eval-queue.ts` (needs redis-server; its queued half is skipped without one),
 * `node bench/serve.ts` (`society serve` against a society run in process; its --queue rows need
 * redis-server). `npm run bench -- --no-serve` leaves the serve benchmark out.
 *
 * The editor benchmark needs a Chromium (it says so and is skipped when there is none) and takes
 * a few minutes; `npm run bench -- --no-editor` leaves it out.
 */
import { benchArtistCriticAlone, formatArtistCritic } from './artist-critic.ts';
import { benchEditor, type EditorBenchResult, formatEditor } from './editor.ts';
import { benchEngineOverhead, formatEngineOverhead } from './engine-overhead.ts';
import { benchEvalQueue, formatEvalQueue } from './eval-queue.ts';
import { benchItcma, formatItcma } from './itcma.ts';
import { benchParallelAgents, formatParallelAgents } from './parallel-agents.ts';
import { benchRunMemory, formatRunMemory } from './run-memory.ts';
import { benchServe, formatServe, type ServeBenchResult } from './serve.ts';
import { benchStartup, formatStartup } from './startup.ts';
import { benchStore, formatStore } from './store.ts';
import { machineLine } from './support.ts';
import { benchToolOverhead, formatToolOverhead } from './tool-overhead.ts';

const started = performance.now();
const withEditor = !process.argv.includes('--no-editor');
const withServe = !process.argv.includes('--no-serve');
const progress = (line: string) => console.error(`[bench] ${line.trim()}`);

progress('parallel agents over HTTP…');
const parallel = await benchParallelAgents();
progress('the Artist–Critic society over HTTP…');
const artistCritic = await benchArtistCriticAlone();
progress('the ITCMA-S sandbox, 75 steps…');
const itcma = await benchItcma();
progress('what a finished 1,000-call run holds…');
const runMemory = await benchRunMemory();
progress('engine overhead…');
const overhead = await benchEngineOverhead({ log: progress });
progress('tool calls to an in-process MCP server…');
const tools = await benchToolOverhead({ log: progress });
progress('run store…');
const store = await benchStore();
progress('an eval in one process and on a queue…');
const evalQueue = await benchEvalQueue();
let served: ServeBenchResult | undefined;
if (withServe) {
  progress('society serve, in process and on a queue…');
  served = await benchServe();
}
progress('CLI start-up…');
const startup = await benchStartup({ log: progress });
let editor: EditorBenchResult = { skipped: 'left out (--no-editor)' };
if (withEditor) {
  progress('editor in headless Chromium…');
  editor = await benchEditor({ log: progress });
}

const rule = '─'.repeat(100);
console.log(rule);
console.log(`Society Studio benchmarks — ${machineLine()}`);
console.log(rule);
for (const line of formatEngineOverhead(overhead)) console.log(line);
console.log(rule);
for (const line of formatToolOverhead(tools)) console.log(line);
console.log(rule);
for (const line of formatParallelAgents(parallel)) console.log(line);
console.log(rule);
for (const line of formatArtistCritic(artistCritic)) console.log(line);
console.log(rule);
for (const line of formatItcma(itcma)) console.log(line);
console.log(rule);
for (const line of formatRunMemory(runMemory)) console.log(line);
console.log(rule);
for (const line of formatStore(store)) console.log(line);
console.log(rule);
for (const line of formatEvalQueue(evalQueue)) console.log(line);
console.log(rule);
if (served) for (const line of formatServe(served)) console.log(line);
else console.log('Serving a society: left out (--no-serve)');
console.log(rule);
for (const line of formatStartup(startup)) console.log(line);
console.log(rule);
for (const line of formatEditor(editor)) console.log(line);
console.log(rule);
console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
