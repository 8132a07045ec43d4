/**
 * Network reach is the user's decision: a shared document whose simulator points at a port of
 * this machine reaches nothing until the user allows that origin, on every headless path (run,
 * a strict replay, resume, an eval's job as a worker runs it). A real listener counts every HTTP
 * request and WebSocket upgrade that arrives; the refusals are asserted by that count, 0.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileGraph } from '../app/compiler/index.ts';
import { executeJob } from '../app/eval/job.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { defineNode, type NodeExecutor } from '../app/node-sdk/define.ts';
import type { NodeRegistry } from '../app/node-sdk/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { allowOrigin } from '../app/store/allowed-hosts.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { edge, graph, node, output, registry } from './support/graphs.ts';
import { type SimulatorServer, startSimulatorServer } from './support/simulator-server.ts';

let server: SimulatorServer;
let dir: string;
beforeAll(async () => {
  server = await startSimulatorServer();
  dir = mkdtempSync(join(tmpdir(), 'society-hosts-'));
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/**
 * What the audit's shared document did: a simulator aimed at a local service's admin path
 * (over WebSocket the reset is an upgrade request to it), one reset and one step.
 */
function hostile(url: string): GraphDocument {
  return graph(
    [node('sim', 'simulator', { url, seed: 1, timeoutMs: 2000 }), output('observation')],
    [edge('sim.observation', 'observation.value')],
    { models: {} },
  );
}

function write(name: string, doc: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const emptyCassette = () =>
  write('empty.cassette.json', { format: 'society-cassette', version: 1, entries: [] });

describe.each(['http', 'ws'] as const)('a simulator at a port of this machine, over %s', (t) => {
  const origin = () => (t === 'http' ? server.http : server.ws);
  const db = () => join(dir, `${t}.db`);

  it('reaches nothing until `society hosts --allow`, then runs', async () => {
    const file = write(
      `admin-${t}.json`,
      hostile(`${origin()}/admin/delete-everything?confirm=yes`),
    );
    for (const extra of [[], ['--simulate'], ['--replay', emptyCassette()]]) {
      const refused = await societyHere(['run', file, '--db', db(), ...extra]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `society: ${origin()} is not an allowed host (node sim would contact it): society hosts --allow ${origin()}`,
      );
      expect(refused.stderr).toContain('nothing was sent');
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }
    expect(server.reached).toBe(0);

    const allowed = await societyHere(['hosts', '--allow', `${origin()}/`, '--db', db()]);
    expect(allowed).toMatchObject({ code: 0, stdout: `${origin()}\n` });
    const ran = await societyHere(['run', file, '--db', db(), '--json', '-q']);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).outputs.observation).toMatch(/^You stand in cell 0/);
    expect(server.reached).toBeGreaterThan(0);

    server.reset();
    const revoked = await societyHere(['hosts', '--revoke', origin(), '--db', db()]);
    expect(revoked.stdout).toMatch(/^no hosts allowed/);
    expect((await societyHere(['run', file, '--db', db()])).code).toBe(2);
    expect(server.reached).toBe(0);
  });

  it('runs once with --allow-host, which allows only that run', async () => {
    const file = write(`once-${t}.json`, hostile(origin()));
    const once = join(dir, `once-${t}.db`);
    const ran = await societyHere(['run', file, '--db', once, '--allow-host', origin(), '-q']);
    expect(ran.code).toBe(0);
    expect((await societyHere(['hosts', '--db', once])).stdout).toMatch(/^no hosts allowed/);
  });
});

describe('society hosts', () => {
  it('takes only an origin, changing nothing on a bad one', async () => {
    const db = join(dir, 'bad.db');
    for (const bad of [
      'http://127.0.0.1:1/admin',
      'file:///etc/passwd',
      'http://u:p@127.0.0.1:1',
    ]) {
      const result = await societyHere([
        'hosts',
        '--allow',
        'http://127.0.0.1:2',
        '--allow',
        bad,
        '--db',
        db,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^society: --allow "[^"]+" (is not an origin|has a path|holds a user name)/,
      );
    }
    expect((await societyHere(['hosts', '--db', db, '--json'])).stdout).toBe('{"origins":[]}\n');
  });
});

describe('an eval job, as a worker runs it', () => {
  it("obeys the worker's own settings: nothing reached until its store allows the origin", async () => {
    const store = openRunStore(join(dir, 'worker.db'));
    try {
      const documentText = JSON.stringify(hostile(server.ws));
      const job = {
        evalId: 'e1',
        item: 0,
        variant: 'base',
        jobKey: 'k1',
        documentText,
        inputs: {},
        blobs: [],
        mode: 'simulated' as const,
      };
      const refused = await executeJob(job, { store });
      expect(refused.result.status).toBe('failed');
      expect(refused.result.error).toContain(`society hosts --allow ${server.ws}`);
      expect(server.reached).toBe(0);

      allowOrigin(store, server.ws);
      const ran = await executeJob({ ...job, jobKey: 'k2' }, { store });
      expect(ran.result.status).toBe('succeeded');
      expect(server.reached).toBe(1);
    } finally {
      store.close();
    }
  });
});

describe('society eval in this process', () => {
  it('refuses an origin not allowed, and runs with --allow-host, which allows only that eval', async () => {
    const file = write('eval-sim.json', hostile(`${server.http}/admin/delete-everything`));
    const data = join(dir, 'eval-rows.jsonl');
    writeFileSync(data, '{"expected":"cell"}\n{"expected":"cell"}\n');
    const db = join(dir, 'eval.db');
    const args = ['eval', file, '--data', data, '--expect', 'expected', '--scorer', 'contains'];
    const common = ['--simulate', '--db', db, '--json', '-q'];

    const refused = await societyHere([...args, ...common]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `society: ${server.http} is not an allowed host (node sim would contact it): society hosts --allow ${server.http}`,
    );
    expect(server.reached).toBe(0);

    // A bad origin, or --allow-host with workers (who allow only their own), is refused.
    const bad = await societyHere([...args, ...common, '--allow-host', 'file:///etc/passwd']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^society: --allow-host /);
    // The queue's secret is given, so the refusal is --allow-host's.
    const secret = join(dir, 'queue.secret');
    writeFileSync(secret, 'a-queue-secret-for-the-hosts-test');
    const queued = await societyHere([
      ...args,
      ...common,
      '--allow-host',
      server.http,
      '--queue',
      'redis://127.0.0.1:1',
      '--queue-secret-file',
      secret,
    ]);
    expect(queued.code).toBe(2);
    expect(queued.stderr).toContain('a worker contacts only the origins its own store allows');
    expect(server.reached).toBe(0);

    const ran = await societyHere([...args, ...common, '--allow-host', server.http]);
    expect(ran.code).toBe(0);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ status: 'finished', items: 2 });
    // Both runs reached the corridor and answered from it: each scored right, none failed.
    expect(summary.variants[0]).toMatchObject({ failed: 0, score: { mean: 1 } });
    // Each of the two items reset the corridor once.
    expect(server.requests.map((r) => r.type)).toEqual(['reset', 'reset']);
    expect((await societyHere(['hosts', '--db', db])).stdout).toMatch(/^no hosts allowed/);
  });
});

/**
 * A node type that declares no origins and makes a graph at run time, as a planner makes its
 * plan: the graph it runs holds a simulator nobody checked before the run started.
 */
function withPlanner(url: string): NodeRegistry {
  const spec = defineNode({
    type: 'maker',
    title: 'Maker',
    group: 'Data',
    description: 'Test: runs a graph it makes at run time.',
    data: z.strictObject({}),
    ports: () => ({ inputs: [], outputs: [{ name: 'text', modality: 'text' }] }),
    callsPerRun: () => 0,
  });
  const execute: NodeExecutor = async (ctx) => {
    const outputs = await ctx.runGraph(hostile(url), {});
    return { text: String(outputs.observation) };
  };
  return {
    specs: new Map([...registry.specs, ['maker', spec as never]]),
    get: (type) => (type === 'maker' ? (spec as never) : registry.get(type)),
    executor: (type) => (type === 'maker' ? Promise.resolve(execute) : registry.executor(type)),
    loopRuntime: (type) => registry.loopRuntime(type),
  };
}

describe('a graph made at run time', () => {
  it('is refused where the simulator would be contacted: a clean failure naming the origin and the command', async () => {
    const own = withPlanner(`${server.http}/api/v1/shutdown/reset?force=1`);
    const doc = graph(
      [node('plan', 'maker'), output('answer')],
      [edge('plan.text', 'answer.value')],
      {
        models: {},
      },
    );
    const compiled = await compileGraph(doc, own);
    if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join('; '));
    // The document itself contacts nothing, so the check before the run lets it start.
    const run = startRun(compiled, {
      experts: expertProviders,
      registry: own,
      allowedOrigins: [server.ws],
    });
    const result = await run.result;
    expect(result.status).toBe('failed');
    expect(result.error).toContain(
      `simulator ${server.http}/api/v1/shutdown/reset was not contacted: ${server.http} is not an origin you allowed (society hosts --allow ${server.http})`,
    );
    expect(result.error).not.toContain('force=1');
    expect(server.reached).toBe(0);

    // Allowed, the same graph reaches it.
    const allowed = await startRun(compiled, {
      experts: expertProviders,
      registry: own,
      allowedOrigins: [server.http],
    }).result;
    expect(allowed.status).toBe('succeeded');
    expect(server.reached).toBe(1);
  });
});
