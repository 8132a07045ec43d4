/**
 * `society cuisineworld sweep`: episodes over a level × agent-count × order-frequency grid,
 * printed as MindAgent's tables with the collaboration score. Each episode is an ordinary run of
 * a two-node graph (an environment and a dispatcher) through the engine: the same prompts,
 * retries, limits and `--provider` redirects as `run`. Sweeps are not recorded in the run store.
 */
import { compileGraph } from '../../../compiler/index.ts';
import {
  type CellCounts,
  formatCosTable,
  type SweepColumn,
  TAU_ALPHAS,
} from '../../../environments/cos.ts';
import { environmentKind } from '../../../environments/registry.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { startRun } from '../../../runtime/engine.ts';
import type { GraphDocument } from '../../../schema/document.ts';
import { simulatedPrefix } from '../../../schema/simulated.ts';
import { UsageError } from '../../errors.ts';
import { parseProviders } from '../../provider-flags.ts';

function list(text: string, what: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`${what}: give a comma-separated list`);
  return items;
}

/** Exactly one positive number. */
function one(text: string, what: string, integer: boolean): number {
  const values = numbers(text, what, integer);
  if (values.length !== 1) throw new UsageError(`${what}: give one number, not a list`);
  return values[0]!;
}

function numbers(text: string, what: string, integer: boolean): number[] {
  return list(text, what).map((item) => {
    const n = Number(item);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      throw new UsageError(`${what}: "${item}" is not a positive ${integer ? 'whole ' : ''}number`);
    return n;
  });
}

/** The graph one episode runs: an environment and a dispatcher. */
export function episodeDocument(options: {
  level: string;
  agents: number;
  alpha: number;
  seed: string | number;
  maxSteps: number;
  controller: 'greedy' | 'model';
  model?: { provider: string; model: string };
  behaviour: 'feedback' | 'retry';
}): GraphDocument {
  return {
    version: 1,
    name: `CuisineWorld ${options.level}, ${options.agents} agents, alpha ${options.alpha}`,
    ...(options.model
      ? { models: { dispatcher: { ...options.model, temperature: 0.1, maxTokens: 100 } } }
      : {}),
    nodes: [
      {
        id: 'kitchen',
        type: 'environment',
        position: { x: 0, y: 0 },
        data: {
          level: options.level,
          agents: options.agents,
          seed: options.seed,
          maxSteps: options.maxSteps,
          alpha: options.alpha,
        },
      },
      {
        id: 'dispatcher',
        type: 'planner',
        position: { x: 300, y: 0 },
        data: {
          mode: 'dispatch',
          controller: options.controller,
          behaviour: options.behaviour,
          ...(options.model ? { model: 'dispatcher' } : {}),
        },
      },
      { id: 'metrics', type: 'output', position: { x: 600, y: 0 }, data: { name: 'metrics' } },
    ],
    edges: [
      {
        id: 'w',
        source: 'kitchen',
        sourceHandle: 'world',
        target: 'dispatcher',
        targetHandle: 'world',
      },
      {
        id: 'm',
        source: 'dispatcher',
        sourceHandle: 'metrics',
        target: 'metrics',
        targetHandle: 'value',
      },
    ],
  };
}

export interface SweepFlags {
  levels: string;
  agents: string;
  alphas?: string;
  episodes: string;
  steps: string;
  seed: string;
  controller: string;
  model?: string;
  behaviour: string;
  simulate?: boolean;
  provider?: string[];
  json?: boolean;
}

export async function sweepCommand(flags: SweepFlags): Promise<number> {
  const kitchen = await environmentKind('cuisineworld');
  const levels = list(flags.levels, '--levels').map((name) => {
    const level = kitchen.level(name);
    if (!level)
      throw new UsageError(`--levels: no level "${name}" (levels: ${kitchen.levels().join(', ')})`);
    return level;
  });
  const agentCounts = numbers(flags.agents, '--agents', true);
  const tooMany = agentCounts.find((n) => n > 8);
  if (tooMany) throw new UsageError(`--agents: ${tooMany} is too many (at most 8)`);
  const alphas = flags.alphas ? numbers(flags.alphas, '--alphas', false) : [...TAU_ALPHAS];
  const episodes = one(flags.episodes, '--episodes', true);
  const maxSteps = one(flags.steps, '--steps', true);
  const providerOverrides = parseProviders(flags.provider ?? []);
  if (flags.controller !== 'greedy' && flags.controller !== 'model')
    throw new UsageError('--controller must be greedy or model');
  if (flags.behaviour !== 'feedback' && flags.behaviour !== 'retry')
    throw new UsageError('--behaviour must be feedback or retry');
  let model: { provider: string; model: string } | undefined;
  if (flags.controller === 'model') {
    const m = /^([^:]+):(.+)$/.exec(flags.model ?? '');
    if (!m)
      throw new UsageError(
        flags.model
          ? `--model expects PROVIDER:MODEL, e.g. openai:gpt-4o-mini, got "${flags.model}"`
          : '--controller model needs --model PROVIDER:MODEL, e.g. openai:gpt-4o-mini',
      );
    model = { provider: m[1]!, model: m[2]! };
  }
  const registry = await loadNodeRegistry();
  const total = levels.length * agentCounts.length * alphas.length * episodes;
  const live = process.stderr.isTTY === true;
  let done = 0;
  // On a terminal the bar redraws in place; in a log, a line every tenth of the way.
  let logged = -1;
  const progress = (what: string) => {
    const width = 24;
    const filled = Math.round((done / total) * width);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${what}`;
    if (live) {
      process.stderr.write(`\r${line.padEnd(100)}`);
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth !== logged || done === total) {
      logged = tenth;
      process.stderr.write(`${line}\n`);
    }
  };
  const results: Record<string, Record<number, CellCounts[]>> = {};
  let simulated = false;
  const spent = { calls: 0, tokens: 0, costUsd: 0 };
  for (const agents of agentCounts) {
    for (const level of levels) {
      const cells: CellCounts[] = [];
      for (const alpha of alphas) {
        const cell: CellCounts = { completed: 0, failed: 0, open: 0 };
        for (let episode = 0; episode < episodes; episode++) {
          progress(`${level} · ${agents} agents · α ${alpha} · episode ${episode + 1}`);
          const doc = episodeDocument({
            level,
            agents,
            alpha,
            seed: `${flags.seed}:${episode}`,
            maxSteps: maxSteps,
            controller: flags.controller,
            ...(model ? { model } : {}),
            behaviour: flags.behaviour,
          });
          const compiled = await compileGraph(doc, registry);
          if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join('; '));
          const run = startRun(compiled, {
            registry,
            simulate: flags.simulate === true,
            providerOverrides,
          });
          const result = await run.result;
          spent.calls += result.usage.calls;
          spent.tokens += result.usage.totalTokens;
          spent.costUsd += result.usage.costUsd;
          if (result.status !== 'succeeded') {
            if (live) process.stderr.write('\n');
            throw new UsageError(
              `${level}, ${agents} agents, α ${alpha}: ${result.error ?? result.status}`,
            );
          }
          const metrics = result.outputs.metrics as {
            completed: number;
            failed: number;
            open: number;
          };
          cell.completed += metrics.completed;
          cell.failed += metrics.failed;
          cell.open += metrics.open;
          if (result.simulated) simulated = true;
          done++;
        }
        cells.push(cell);
      }
      results[level] ??= {};
      results[level]![agents] = cells;
    }
  }
  progress('done');
  if (live) process.stderr.write('\n');
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ levels, agents: agentCounts, alphas, episodes, results, simulated })}\n`,
    );
    return 0;
  }
  const who =
    flags.controller === 'greedy'
      ? 'greedy dispatcher (no model)'
      : `${model!.provider}:${model!.model}`;
  const tables = agentCounts.map((agents) => {
    const columns: SweepColumn[] = levels.map((level) => ({
      level,
      cells: results[level]![agents]!,
    }));
    return formatCosTable(
      `${simulatedPrefix(simulated)}${agents} agents · ${who} · ${episodes} episode${episodes === 1 ? '' : 's'} of ${maxSteps} steps per cell`,
      columns,
      alphas,
    );
  });
  process.stdout.write(`${tables.join('\n\n')}\n`);
  process.stderr.write(
    `${total} episodes · ${spent.calls} model calls · ${spent.tokens.toLocaleString('en-US')} tokens · $${spent.costUsd.toFixed(4)}${simulated ? ' · simulated answers' : ''}\n`,
  );
  return 0;
}
