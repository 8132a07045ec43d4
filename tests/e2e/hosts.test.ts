/**
 * Network reach is the person's decision in the studio too: a document whose simulator points at
 * a port of this machine sends nothing there until the person allows that origin. The run stops
 * before it starts and asks, naming the origin and the node; Cancel sends nothing and records
 * nothing; Allow and run adds the origin to Settings → Allowed hosts and runs; revoked there, the
 * next run asks again. A real listener counts every request that arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimulatorServer, startSimulatorServer } from '../support/simulator-server.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

let server: SimulatorServer;
beforeAll(async () => {
  server = await startSimulatorServer();
});
afterAll(() => server?.close());

/** A shared document: a simulator aimed at a local service's admin path, and its observation. */
const document = (url: string) => ({
  version: 1,
  name: 'Local simulator',
  models: {},
  nodes: [
    {
      id: 'sim',
      type: 'simulator',
      position: { x: 0, y: 0 },
      data: { url, seed: 1, timeoutMs: 2000 },
    },
    {
      id: 'observation',
      type: 'output',
      position: { x: 360, y: 0 },
      data: { name: 'observation' },
    },
  ],
  edges: [
    {
      id: 'e1',
      source: 'sim',
      sourceHandle: 'observation',
      target: 'observation',
      targetHandle: 'value',
    },
  ],
});

describe.skipIf(!HAVE_CHROMIUM)('allowed hosts in the studio', () => {
  const studio = studioForSuite();

  it('asks before a run reaches a host, sends nothing on Cancel, runs once allowed, asks again once revoked', async () => {
    const s = studio();
    const { page } = s;
    const origin = server.http;
    await openDocument(
      s,
      'local-sim.society.json',
      document(`${origin}/admin/delete-everything?confirm=yes`),
      'sim',
    );

    // Asked, naming the origin and the node; cancelled, nothing reached it and nothing is recorded.
    await page.getByTestId('tb-run-simulated').click();
    const notice = page.getByTestId('notice');
    await notice.getByTestId('notice-allow-hosts').waitFor();
    const asked = (await notice.textContent()) ?? '';
    expect(asked).toContain(`${origin} (node sim)`);
    expect(asked).toContain('Nothing was sent');
    expect(await notice.getByTestId('notice-allow-hosts').textContent()).toBe('Allow and run');
    expect(await notice.getByTestId('notice-hosts-cancel').textContent()).toBe('Cancel');
    // Nothing is starting while the person is asked: no Stop that would stop nothing.
    expect(await page.getByTestId('run-status').textContent()).not.toMatch(/starting/i);
    expect(await page.getByTestId('tb-stop').isDisabled()).toBe(true);
    await s.screenshot('hosts-asked');
    await notice.getByTestId('notice-hosts-cancel').click();
    await notice.waitFor({ state: 'detached' });
    expect(server.reached).toBe(0);
    expect(s.store.listRuns()).toEqual([]);
    expect(await page.getByTestId('run-status').textContent()).not.toMatch(/running|succeeded/i);

    // Asked again; allowed, the run reaches the simulator and succeeds.
    await page.getByTestId('tb-run-simulated').click();
    await notice.getByTestId('notice-allow-hosts').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded']);
    expect(server.reached).toBeGreaterThan(0);
    expect(server.requests.map((r) => r.type)).toEqual(['reset']);

    // Settings → Allowed hosts lists it; revoked there, the next run is asked for again and
    // nothing more reaches the simulator.
    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-nav-hosts').click();
    const row = page.getByTestId(`host-${origin}`);
    await row.waitFor();
    expect(await row.textContent()).toContain(origin);
    await s.screenshot('hosts-settings');
    await page.getByTestId(`host-revoke-${origin}`).click();
    await page.getByTestId('hosts-none').waitFor();
    await page.getByTestId('settings-modal-close').click();

    server.reset();
    await page.getByTestId('tb-run-simulated').click();
    await notice.getByTestId('notice-allow-hosts').waitFor();
    expect(await notice.textContent()).toContain(`${origin} (node sim)`);
    await notice.getByTestId('notice-hosts-cancel').click();
    expect(server.reached).toBe(0);
    expect(s.store.listRuns()).toHaveLength(1);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
