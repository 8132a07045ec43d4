/**
 * A node's reports in a run: a node type declares its kinds with a schema, and what it reports
 * becomes one `report` event holding the data as the schema parsed it, keys scrubbed like any
 * event. What its spec does not declare, or data that does not fit, fails the node in one line.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { edge, eventsOf, graph, node, output, registry } from '../../tests/support/graphs.ts';
import { compileGraph } from '../compiler/index.ts';
import { expertProviders } from '../experts/providers.ts';
import { defineNode, type NodeExecutor } from '../node-sdk/define.ts';
import type { NodeRegistry } from '../node-sdk/registry.ts';
import { Redactor } from '../providers/secrets.ts';
import { startRun } from './engine.ts';
import type { RunOptions } from './run-options.ts';

const SECRET = 'sk-test-0123456789abcdef';

/** A node type `teller` whose executor reports what the test gives it. */
function teller(report: (ctx: Parameters<NodeExecutor>[0]) => void): NodeRegistry {
  const spec = defineNode({
    type: 'teller',
    title: 'Teller',
    group: 'Data',
    description: 'Test: reports, then answers.',
    data: z.strictObject({}),
    ports: () => ({ inputs: [], outputs: [{ name: 'text', modality: 'text' }] }),
    callsPerRun: () => 0,
    reports: { count: z.strictObject({ n: z.number().int(), note: z.string().default('') }) },
  });
  const execute: NodeExecutor = async (ctx) => {
    report(ctx);
    return { text: 'told' };
  };
  return {
    specs: new Map([...registry.specs, ['teller', spec as never]]),
    get: (type) => (type === 'teller' ? (spec as never) : registry.get(type)),
    executor: (type) => (type === 'teller' ? Promise.resolve(execute) : registry.executor(type)),
    loopRuntime: (type) => registry.loopRuntime(type),
  };
}

const doc = graph([node('t', 'teller'), output('answer')], [edge('t.text', 'answer.value')], {
  models: {},
});

/** Runs the document with the teller's registry to the end. */
async function run(own: NodeRegistry, options: Partial<RunOptions> = {}) {
  const compiled = await compileGraph(doc, own);
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join('; '));
  const r = startRun(compiled, { experts: expertProviders, ...options, registry: own });
  return { ...(await r.result), events: r.events };
}

describe('a node report', () => {
  it('is logged as the schema parsed it, keys scrubbed', async () => {
    const own = teller((ctx) => {
      ctx.report('count', { n: 3 });
      ctx.report('count', { n: 4, note: `key ${SECRET}` });
    });
    const result = await run(own, { redactor: new Redactor([SECRET]) });
    expect(result.status).toBe('succeeded');
    const reports = eventsOf(result.events, 'report');
    expect(
      reports.map(({ node, instance, kind, data }) => ({ node, instance, kind, data })),
    ).toEqual([
      { node: 't', instance: 't', kind: 'count', data: { n: 3, note: '' } },
      { node: 't', instance: 't', kind: 'count', data: { n: 4, note: 'key [redacted]' } },
    ]);
  });

  it('fails the node naming the field when its data does not fit the kind', async () => {
    const result = await run(teller((ctx) => ctx.report('count', { n: 'three' })));
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^node "t": its "count" report does not fit its spec: n: /);
    expect(result.error).not.toContain('\n');
    expect(eventsOf(result.events, 'report')).toEqual([]);
  });

  it('fails the node when its spec does not declare the kind', async () => {
    const result = await run(teller((ctx) => ctx.report('tally', {})));
    expect(result.status).toBe('failed');
    expect(result.error).toBe(
      'node "t": it reported "tally", which its spec does not declare (reports: count)',
    );
  });
});
