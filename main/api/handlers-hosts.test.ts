/**
 * The studio's runs reach only the hosts the user allowed, called the way the page calls it: a
 * document whose simulator points at a port of this machine is refused before it is recorded
 * (reason `hosts`, the prompt's cue) and nothing reaches the listener, in every mode and on a
 * fork; `run.hosts` names the origins for the prompt; once `settings.hosts.allow` has them, the
 * same run goes out. A real local simulator counts every HTTP request and WebSocket upgrade.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type SimulatorServer,
  startSimulatorServer,
} from '../../tests/support/simulator-server.ts';
import { call, finished, refusal, store, withApi } from './handlers.test-helper.ts';

/** A simulator aimed at a local service's admin path, its observation the run's output. */
const hostile = (url: string) => ({
  version: 1,
  name: 'shared document',
  models: {},
  nodes: [
    {
      id: 'sim',
      type: 'simulator',
      position: { x: 0, y: 0 },
      data: { url: `${url}/admin/delete-everything?confirm=yes`, timeoutMs: 2000 },
    },
    { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'seen' } },
  ],
  edges: [
    { id: 'e1', source: 'sim', sourceHandle: 'observation', target: 'out', targetHandle: 'value' },
  ],
});

let server: SimulatorServer;

withApi({ name: 'hosts' });
beforeAll(async () => {
  server = await startSimulatorServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => server.reset());

describe.each(['http', 'ws'] as const)('a simulator at a port of this machine, over %s', (t) => {
  const origin = () => (t === 'http' ? server.http : server.ws);

  it('is refused until allowed, then the run reaches it; a fork is held to the same rule', async () => {
    const doc = hostile(origin());
    const before = store.listRuns().length;
    for (const mode of ['simulated', 'live'] as const) {
      const refused = await refusal(call('run.start', { document: doc, inputs: {}, mode }));
      expect(refused.reason).toBe('hosts');
      expect(refused.message).toBe(
        `cannot run: nothing was sent: this document contacts a host you have not allowed: ${origin()} (node sim); a document cannot choose the hosts it reaches: allow it in Settings → Allowed hosts`,
      );
    }
    expect(store.listRuns()).toHaveLength(before);
    expect(server.reached).toBe(0);

    // The prompt's list, then Allow and run.
    expect(await call('run.hosts', { document: doc })).toEqual([
      { origin: origin(), nodes: ['sim'], allowed: false },
    ]);
    expect((await call('settings.hosts.allow', { origin: origin() })).origins).toContain(origin());
    const { runId } = await call('run.start', { document: doc, inputs: {}, mode: 'simulated' });
    expect(await finished(runId)).toMatchObject({ status: 'succeeded' });
    expect(server.reached).toBe(1);

    // Revoked: a fork of that run is refused before it is recorded, reaching nothing.
    server.reset();
    expect((await call('settings.hosts.revoke', { origin: origin() })).origins).not.toContain(
      origin(),
    );
    expect(await call('runs.hosts', { runId })).toEqual([
      { origin: origin(), nodes: ['sim'], allowed: false },
    ]);
    const runs = store.listRuns().length;
    const fork = await refusal(call('runs.fork', { runId, at: 2, simulate: true }));
    expect(fork.reason).toBe('hosts');
    expect(store.listRuns()).toHaveLength(runs);
    expect(server.reached).toBe(0);
  });
});

describe('settings.hosts.allow', () => {
  it('takes an origin and nothing more', async () => {
    const refused = await refusal(
      call('settings.hosts.allow', { origin: 'http://127.0.0.1:1/admin' }),
    );
    expect(refused.message).toMatch(/has a path/);
    expect((await call('settings.hosts.list', {})).origins).not.toContain('http://127.0.0.1:1');
  });
});
