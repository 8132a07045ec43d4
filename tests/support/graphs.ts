/**
 * Small builders for graph documents, so a test reads like the society it builds:
 *
 *   const doc = graph(
 *     [input('q'), agent('a', '{{ q }}'), output('answer')],
 *     [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
 *   );
 */

import { expect } from 'vitest';
import { type CompiledGraph, compileGraph } from '../../app/compiler/index.ts';
import { expertProviders } from '../../app/experts/providers.ts';
import { loadNodeRegistry } from '../../app/node-sdk/registry.ts';
import { tallyOf, type VoteTally } from '../../app/node-sdk/tally.ts';
import { type Run, type RunOptions, type RunResult, startRun } from '../../app/runtime/engine.ts';
import type { RunEvent, RunEventType } from '../../app/runtime/events.ts';
import type {
  GraphDocument,
  GraphEdge,
  GraphNode,
  ModelProfile,
  RunSettings,
} from '../../app/schema/document.ts';
import type { Problem } from '../../app/schema/problems.ts';

export const registry = await loadNodeRegistry();

let column = 0;

/** A node of any type; positions are spread out so the document also looks fine in the editor. */
export function node(
  id: string,
  type: string,
  data: Record<string, unknown> = {},
  extra: Partial<GraphNode> = {},
): GraphNode {
  return { id, type, position: { x: 200 * (column++ % 8), y: 0 }, data, ...extra };
}

export const input = (name: string, data: Record<string, unknown> = {}) =>
  node(name, 'input', { name, ...data });

export const output = (name: string, data: Record<string, unknown> = {}) =>
  node(name, 'output', { name, ...data });

/** An agent on model profile `m` unless `data.model` says otherwise. */
export const agent = (
  id: string,
  prompt: string,
  data: Record<string, unknown> = {},
  extra: Partial<GraphNode> = {},
) => node(id, 'agent', { model: 'm', prompt, ...data }, extra);

/** `edge('a.text', 'b.question')`: from node a's output `text` to node b's input `question`. */
export function edge(from: string, to: string, data?: GraphEdge['data']): GraphEdge {
  const [source, sourceHandle] = split(from);
  const [target, targetHandle] = split(to);
  return {
    id: `${from}->${to}`,
    source,
    sourceHandle,
    target,
    targetHandle,
    ...(data ? { data } : {}),
  };
}

function split(ref: string): [string, string] {
  const dot = ref.lastIndexOf('.');
  if (dot < 0) throw new Error(`"${ref}" is not node.port`);
  return [ref.slice(0, dot), ref.slice(dot + 1)];
}

/** A document with one model profile `m` on provider `test` unless told otherwise. */
export function graph(
  nodes: GraphNode[],
  edges: GraphEdge[] = [],
  options: {
    models?: Record<string, ModelProfile>;
    settings?: RunSettings;
    name?: string;
  } = {},
): GraphDocument {
  return {
    version: 1,
    name: options.name ?? 'test society',
    models: options.models ?? { m: { provider: 'test', model: 'test-model' } },
    ...(options.settings ? { settings: options.settings } : {}),
    nodes,
    edges,
  };
}

/** Compiles a document that must be valid; fails the test with its problems otherwise. */
export async function compile(doc: unknown): Promise<CompiledGraph> {
  const result = await compileGraph(doc, registry);
  if (!result.ok) {
    expect.fail(`expected the graph to compile:\n${JSON.stringify(result.problems, null, 2)}`);
  }
  return result;
}

/** The problems of a document that must be invalid. */
export async function problems(doc: unknown): Promise<Problem[]> {
  const result = await compileGraph(doc, registry);
  if (result.ok) expect.fail('expected the graph to have problems');
  return result.problems;
}

/** Compiles and starts a run; `options.registry` defaults to the built-in node types. */
export async function start(doc: unknown, options: Partial<RunOptions> = {}): Promise<Run> {
  return startRun(await compile(doc), { registry, experts: expertProviders, ...options });
}

/** Compiles, runs to the end and returns the result and every event. */
export async function run(
  doc: unknown,
  options: Partial<RunOptions> = {},
): Promise<RunResult & { events: RunEvent[]; run: Run }> {
  const r = await start(doc, options);
  const result = await r.result;
  return { ...result, events: r.events, run: r };
}

/** The events of one type, typed. */
export function eventsOf<T extends RunEventType>(
  events: readonly RunEvent[],
  type: T,
): Array<Extract<RunEvent, { type: T }>> {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** A run's vote tallies (`tally` reports, from any node), in order, each with who held it. */
export function talliesOf(
  events: readonly RunEvent[],
): Array<{ node: string; instance: string; seq: number; tally: VoteTally }> {
  return eventsOf(events, 'report').flatMap((e) => {
    const tally = tallyOf(e);
    return tally ? [{ node: e.node, instance: e.instance, seq: e.seq, tally }] : [];
  });
}

/** A run's reports of one kind (from any node), in order. */
export function reportsOf(events: readonly RunEvent[], kind: string) {
  return eventsOf(events, 'report').filter((e) => e.kind === kind);
}

/** Resolves with the first event (past or future) that matches. */
export function nextEvent<T extends RunEventType>(
  r: Run,
  type: T,
  where: (event: Extract<RunEvent, { type: T }>) => boolean = () => true,
): Promise<Extract<RunEvent, { type: T }>> {
  return new Promise((resolve) => {
    const unsubscribe = r.subscribe((event) => {
      if (event.type === type && where(event as Extract<RunEvent, { type: T }>)) {
        queueMicrotask(() => unsubscribe());
        resolve(event as Extract<RunEvent, { type: T }>);
      }
    });
  });
}

/** Polls until `check` holds (for things only visible from outside, such as a socket closing). */
export async function until(check: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}
