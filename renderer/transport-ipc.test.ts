import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiError } from './api.ts';
import { callOverIpc, desktopBridge, runEventsOf, type SocietyBridge } from './transport-ipc.ts';

/** A stand-in for the preload's `window.society`. */
function fakeBridge(answers: Record<string, (params: unknown) => unknown>) {
  let listener: ((push: unknown) => void) | undefined;
  const bridge = {
    onRunEvent: vi.fn((l: (push: unknown) => void) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    }),
  } as Record<string, unknown>;
  const calls: Array<[string, unknown]> = [];
  for (const [method, answer] of Object.entries(answers)) {
    bridge[method] = async (params: unknown) => {
      calls.push([method, params]);
      return answer(params);
    };
  }
  return {
    bridge: bridge as unknown as SocietyBridge,
    calls,
    push: (value: unknown) => listener?.(value),
  };
}

describe('the API client over IPC', () => {
  it('validates params before sending and results after', async () => {
    const { bridge, calls } = fakeBridge({
      'runs.list': () => ({ result: [] }),
      'files.list': () => ({ result: [{ name: 'a.society.json' }] }),
    });
    const client = new ApiClient('ws://unused', bridge);
    expect(await client.call('runs.list', {})).toEqual([]);
    // Defaults are applied before the request leaves, as over the socket.
    expect(calls).toEqual([['runs.list', { limit: 50 }]]);

    await expect(client.call('runs.list', { limit: 0 })).rejects.toThrow(/bad parameters/);
    expect(calls).toHaveLength(1);

    await expect(client.call('files.list', {})).rejects.toThrow(
      /answered files\.list with an unexpected shape \(0\.modifiedAt/,
    );
  });

  it("rejects with the backend's message and problems", async () => {
    const problems = [{ path: 'nodes.0.type', node: 'a', message: 'unknown node type' }];
    const { bridge } = fakeBridge({
      'document.validate': () => ({ error: { message: 'the document has problems', problems } }),
    });
    const client = new ApiClient('ws://unused', bridge);
    const error = await client.call('document.validate', { document: {} }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('the document has problems');
    expect(error.problems).toEqual(problems);
  });

  it('is open at once and delivers run events, ignoring malformed pushes', () => {
    const { bridge, push } = fakeBridge({});
    const client = new ApiClient('ws://unused', bridge);
    const statuses: string[] = [];
    client.onStatus((s) => statuses.push(s));
    const events: Array<[string, unknown]> = [];
    client.onRunEvent((runId, event) => events.push([runId, event]));
    client.connect();
    client.connect();
    expect(statuses).toEqual(['closed', 'open', 'open']);
    expect(bridge.onRunEvent).toHaveBeenCalledTimes(1);
    push({
      push: 'run.events',
      pushes: [
        { push: 'run.event', runId: 'r1', event: { type: 'message' } },
        { push: 'run.event', runId: 1, event: {} },
        { push: 'run.event', runId: 'r1', event: { type: 'node.started' } },
      ],
    });
    push({ push: 'something else', pushes: [{ push: 'run.event', runId: 'r1', event: {} }] });
    push({ push: 'run.event', runId: 'r1', event: { type: 'a lone event' } });
    push(null);
    expect(events).toEqual([
      ['r1', { type: 'message' }],
      ['r1', { type: 'node.started' }],
    ]);
  });
});

describe('the IPC transport', () => {
  afterEach(() => {
    delete (globalThis as { society?: unknown }).society;
  });

  it('finds the bridge only where the preload put one', () => {
    expect(desktopBridge()).toBeUndefined();
    (globalThis as { society?: unknown }).society = { onRunEvent: () => () => {} };
    expect(desktopBridge()).toBeDefined();
  });

  it('turns every failure into an error answer', async () => {
    const { bridge } = fakeBridge({
      'files.list': () => {
        throw new Error('Error invoking remote method');
      },
      'runs.list': () => 'not an envelope',
      'settings.keys': () => ({ neither: true }),
    });
    expect(await callOverIpc(bridge, 'templates.list', {})).toEqual({
      error: { message: expect.stringMatching(/does not offer templates\.list/), problems: [] },
    });
    expect(await callOverIpc(bridge, 'files.list', {})).toEqual({
      error: { message: expect.stringMatching(/did not answer files\.list/), problems: [] },
    });
    expect(await callOverIpc(bridge, 'runs.list', {})).toMatchObject({
      error: { message: expect.stringMatching(/not an answer/) },
    });
    expect(await callOverIpc(bridge, 'settings.keys', {})).toMatchObject({
      error: { message: expect.stringMatching(/not an answer/) },
    });
  });

  it('sends params as JSON would carry them', async () => {
    const { bridge, calls } = fakeBridge({ 'files.write': () => ({ result: { name: 'a' } }) });
    await callOverIpc(bridge, 'files.write', { name: 'a', text: 'x', dropped: undefined });
    expect(calls).toEqual([['files.write', { name: 'a', text: 'x' }]]);
  });

  it('reads batches of run events, in order, leaving out malformed ones', () => {
    const batch = (...pushes: unknown[]) => ({ push: 'run.events', pushes });
    expect(
      runEventsOf(
        batch(
          { push: 'run.event', runId: 'r', event: { type: 'x' } },
          { push: 'run.event', runId: 'r', event: 'x' },
          null,
          { push: 'run.event', runId: 's', event: { type: 'y' } },
        ),
      ),
    ).toEqual([
      { runId: 'r', event: { type: 'x' } },
      { runId: 's', event: { type: 'y' } },
    ]);
    expect(runEventsOf({ push: 'run.events', pushes: 'x' })).toEqual([]);
    expect(runEventsOf(undefined)).toEqual([]);
  });
});
