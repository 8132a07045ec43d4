import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type SimulatorFault,
  type SimulatorServer,
  startSimulatorServer,
} from '../../../tests/support/simulator-server.ts';
import { originOf } from '../../runtime/origins.ts';
import { simulatorClient } from './client.ts';
import { urlProblem } from './url.ts';

let server: SimulatorServer;
beforeAll(async () => {
  server = await startSimulatorServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const url = (transport: 'http' | 'ws') => (transport === 'http' ? server.http : server.ws);
/** The test server's origins, allowed as a user would allow them. */
const allowedOrigins = (): ReadonlySet<string> =>
  new Set([originOf(server.http)!, originOf(server.ws)!]);

describe.each(['http', 'ws'] as const)('the simulator client over %s', (transport) => {
  it('plays an episode: reset, then steps until the simulator says done', async () => {
    const client = simulatorClient(url(transport), {
      timeoutMs: 2000,
      allowedOrigins: allowedOrigins(),
    });
    try {
      const start = await client.reset({ seed: 7, options: { length: 2 } });
      expect(start).toMatchObject({
        session: 's1',
        done: false,
        actions: ['east', 'west', 'wait'],
      });
      const first = await client.step({ session: start.session, action: 'east', step: 1 });
      expect(first).toMatchObject({ done: false, reward: 0, state: { position: 1 } });
      const last = await client.step({
        session: start.session,
        action: 'east',
        step: 2,
        agent: 'robot',
      });
      expect(last).toMatchObject({
        done: true,
        reward: 1,
        observation: 'You reach the exit after 2 steps.',
      });
    } finally {
      client.close();
    }
    expect(server.requests.map((r) => [r.transport, r.type])).toEqual([
      [transport, 'reset'],
      [transport, 'step'],
      [transport, 'step'],
    ]);
    // Every request says which protocol it speaks; the optional fields go only when given.
    expect(server.requests[0]!.body).toEqual({ protocol: 1, seed: 7, options: { length: 2 } });
    expect(server.requests[1]!.body).toEqual({
      protocol: 1,
      session: 's1',
      action: 'east',
      step: 1,
    });
    expect(server.requests[2]!.body).toMatchObject({ agent: 'robot' });
  });

  const faults: Array<[SimulatorFault, RegExp]> = [
    [
      'bad-observation',
      /^simulator (http|ws):\/\/127\.0\.0\.1:\d+ answered out of protocol to step: observation: expected text$/,
    ],
    [
      'not-json',
      /^simulator \S+ answered step with something other than JSON: "<html>(hello|Internal Server Error)<\/html>"$/,
    ],
    ['refuse', /^simulator \S+ refused step( \(HTTP 503\))?: the simulator is busy$/],
    ['huge', /^simulator \S+ answered step with more than 1 MiB, past the cap on one answer$/],
  ];
  it.each(faults)('fails in one line when the simulator answers %s', async (kind, line) => {
    const client = simulatorClient(url(transport), {
      timeoutMs: 2000,
      allowedOrigins: allowedOrigins(),
    });
    try {
      const { session } = await client.reset({ seed: 1 });
      server.fault('step', kind);
      await expect(client.step({ session, action: 'east', step: 1 })).rejects.toThrow(line);
    } finally {
      client.close();
    }
  });

  it('gives up on a silent simulator after timeoutMs', async () => {
    server.fault('reset', 'silent');
    const client = simulatorClient(url(transport), {
      timeoutMs: 150,
      allowedOrigins: allowedOrigins(),
    });
    await expect(client.reset({ seed: 1 })).rejects.toThrow(
      /^simulator \S+ did not answer reset within 150 ms \(timeoutMs\)$/,
    );
    client.close();
  });

  it('stops waiting when the run is cancelled, without calling it a timeout', async () => {
    server.fault('reset', 'silent');
    const cancel = new AbortController();
    const client = simulatorClient(url(transport), {
      timeoutMs: 5000,
      signal: cancel.signal,
      allowedOrigins: allowedOrigins(),
    });
    const pending = client.reset({ seed: 1 });
    setTimeout(() => cancel.abort(new Error('run cancelled')), 20);
    await expect(pending).rejects.toThrow(/^run cancelled$/);
    client.close();
  });

  it('says so when nothing listens at the URL', async () => {
    const port = await closedPort();
    const closed = `${transport}://127.0.0.1:${port}`;
    const client = simulatorClient(closed, { timeoutMs: 2000, allowedOrigins: new Set([closed]) });
    await expect(client.reset({ seed: 1 })).rejects.toThrow(
      `simulator ${transport}://127.0.0.1:${port} could not be reached for reset: connection refused (is the simulator running?)`,
    );
    client.close();
  });
});

describe('the simulator client over http', () => {
  it('names the status of a server error without its body', async () => {
    const client = simulatorClient(server.http, {
      timeoutMs: 2000,
      allowedOrigins: allowedOrigins(),
    });
    server.fault('reset', 'status-500');
    await expect(client.reset({ seed: 1 })).rejects.toThrow(
      /^simulator \S+ answered reset with something other than JSON \(HTTP 500\): "Internal Server Error"$/,
    );
  });

  it('posts under the URL path and keeps a query string out of messages', async () => {
    const client = simulatorClient(`${server.http}/worlds/corridor/?token=abc`, {
      timeoutMs: 2000,
      allowedOrigins: allowedOrigins(),
    });
    await client.reset({ seed: 1 });
    server.fault('step', 'bad-observation');
    await expect(client.step({ session: 's1', action: 'east', step: 1 })).rejects.toThrow(
      `simulator ${server.http}/worlds/corridor answered out of protocol to step`,
    );
  });
});

describe('which simulators a document may name', () => {
  it('takes http, https, ws and wss URLs without credentials', () => {
    expect(urlProblem('http://127.0.0.1:5123')).toBeUndefined();
    expect(urlProblem('wss://sim.example.org/v1')).toBeUndefined();
    expect(urlProblem('file:///etc/passwd')).toBe(
      'a simulator is reached over http, https, ws or wss, not file',
    );
    expect(urlProblem('127.0.0.1:5123')).toMatch(/not http, https, ws or wss|is not a URL/);
    expect(urlProblem('http://me:secret@127.0.0.1')).toMatch(/no user name or password/);
  });

  it.each(['http', 'ws'] as const)(
    'connects over %s only to an origin the user allowed, this machine included',
    async (transport) => {
      const other = new Set(['http://127.0.0.1:1']);
      expect(() =>
        simulatorClient(url(transport), { timeoutMs: 2000, allowedOrigins: other }),
      ).toThrow(
        `simulator ${url(transport)} was not contacted: ${url(transport)} is not an origin you allowed (society hosts --allow ${url(transport)})`,
      );
      // http and ws on the same port are two origins: allowing one is not allowing the other.
      const sibling = new Set([originOf(transport === 'http' ? server.ws : server.http)!]);
      expect(() =>
        simulatorClient(url(transport), { timeoutMs: 2000, allowedOrigins: sibling }),
      ).toThrow(/was not contacted/);
      expect(server.reached).toBe(0);
      const client = simulatorClient(url(transport), {
        timeoutMs: 2000,
        allowedOrigins: allowedOrigins(),
      });
      await client.reset({ seed: 1 });
      client.close();
      expect(server.reached).toBe(1);
    },
  );
});

/** A port nothing listens on (bound, then let go). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
