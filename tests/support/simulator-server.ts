/**
 * A tiny simulator for tests, speaking the reset/step protocol (docs/simulator-protocol.md) over
 * HTTP and WebSocket on one port of 127.0.0.1: a corridor of cells, the agent starting at cell 0
 * and the exit at the far end. Deterministic: the same actions give the same episode. It records
 * every request that reached it, and can be told to break the protocol in the ways a real
 * simulator might (a field of the wrong type, text that is not JSON, HTTP 500, silence, an
 * answer far too long).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/** How the server misbehaves, when told to. */
export type SimulatorFault =
  /** `observation` is a number. */
  | 'bad-observation'
  /** The answer is text that is not JSON. */
  | 'not-json'
  /** HTTP 500 with a plain-text body (over WebSocket: not JSON either). */
  | 'status-500'
  /** No answer at all. */
  | 'silent'
  /** An answer of 2 MiB. */
  | 'huge'
  /** `{ "error": "…" }`: a refusal the protocol allows. */
  | 'refuse';

/** One request that reached the server. */
export interface SimulatorRequest {
  transport: 'http' | 'ws';
  type: string;
  body: Record<string, unknown>;
}

export interface SimulatorServer {
  /** `http://127.0.0.1:<port>`. */
  http: string;
  /** `ws://127.0.0.1:<port>`. */
  ws: string;
  requests: SimulatorRequest[];
  /**
   * HTTP requests and WebSocket upgrades that reached it since it started or was last reset,
   * counted as they arrive (before any is read or answered): 0 means nothing reached it.
   */
  readonly reached: number;
  /** The steps that reached it, in order. */
  steps(): SimulatorRequest[];
  /** Misbehave on every request of `type` (after letting `after` of them through). */
  fault(type: 'reset' | 'step', kind: SimulatorFault, after?: number): void;
  /** Behave again, and forget the requests. */
  reset(): void;
  close(): Promise<void>;
}

interface Corridor {
  position: number;
  exit: number;
  steps: number;
  seed: unknown;
  /** The answer to the last step, given again when that step is asked for again. */
  last?: unknown;
}

/** Starts the corridor simulator on a free port of 127.0.0.1. */
export async function startSimulatorServer(): Promise<SimulatorServer> {
  const sessions = new Map<string, Corridor>();
  const requests: SimulatorRequest[] = [];
  let fault: { type: string; kind: SimulatorFault; after: number } | undefined;

  /** The protocol's answer to one request, or a fault to act out. */
  const answer = (type: string, body: Record<string, unknown>): unknown => {
    const seen = requests.filter((r) => r.type === type).length;
    if (fault && fault.type === type && seen > fault.after) return { fault: fault.kind };
    if (type === 'reset') {
      const options = (body.options ?? {}) as { length?: unknown };
      const exit = typeof options.length === 'number' ? options.length : 5;
      const session = `s${sessions.size + 1}`;
      const world: Corridor = { position: 0, exit, steps: 0, seed: body.seed };
      sessions.set(session, world);
      return { protocol: 1, session, ...view(world) };
    }
    if (type === 'step') {
      const world = sessions.get(String(body.session));
      if (!world) return { error: `no session "${String(body.session)}"` };
      // A step sent again (by a run resumed after a crash) gets the answer it had.
      if (body.step === world.steps && world.last) return world.last;
      if (world.position === world.exit) return { error: 'the episode is over' };
      const action = String(body.action);
      const moves: Record<string, number> = { east: 1, west: -1, wait: 0 };
      const move = moves[action];
      world.steps += 1;
      if (move !== undefined) world.position = Math.max(0, world.position + move);
      const arrived = world.position === world.exit;
      world.last = {
        ...view(world),
        ...(move === undefined ? { info: { ignored: action } } : {}),
        reward: arrived ? 1 : 0,
      };
      return world.last;
    }
    return { error: `no request "${type}"` };
  };

  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const type = (req.url ?? '').split('?')[0]!.split('/').at(-1) ?? '';
      const body = parseObject(text);
      requests.push({ transport: 'http', type, body });
      const out = answer(type, body);
      if (isFault(out)) return httpFault(res, out.fault);
      const refused = typeof (out as { error?: unknown }).error === 'string';
      res.writeHead(refused ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  let reached = 0;
  server.on('request', () => reached++);
  server.on('upgrade', () => reached++);
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = parseObject(data.toString());
      const { id, type, ...body } = message;
      requests.push({ transport: 'ws', type: String(type), body });
      const out = answer(String(type), body);
      if (!isFault(out)) return socket.send(JSON.stringify({ id, ...(out as object) }));
      switch (out.fault) {
        case 'silent':
          return;
        case 'not-json':
        case 'status-500':
          return socket.send('<html>Internal Server Error</html>');
        case 'huge':
          return socket.send(JSON.stringify({ id, observation: 'x'.repeat(2 * 1024 * 1024) }));
        case 'refuse':
          return socket.send(JSON.stringify({ id, error: 'the simulator is busy' }));
        case 'bad-observation':
          return socket.send(JSON.stringify({ id, observation: 42, done: false }));
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    http: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}`,
    requests,
    get reached() {
      return reached;
    },
    steps: () => requests.filter((r) => r.type === 'step'),
    fault(type, kind, after = 0) {
      fault = { type, kind, after };
    },
    reset() {
      fault = undefined;
      requests.length = 0;
      reached = 0;
      sessions.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the agent sees in the corridor, as the protocol's fields. */
function view(world: Corridor) {
  const left = world.exit - world.position;
  const actions = [...(world.position < world.exit ? ['east'] : []), 'west', 'wait'];
  return {
    observation:
      left === 0
        ? `You reach the exit after ${world.steps} steps.`
        : `You stand in cell ${world.position} of a corridor; the exit is ${left} cell${left === 1 ? '' : 's'} east.`,
    actions: left === 0 ? [] : actions,
    state: { position: world.position, exit: world.exit, steps: world.steps, seed: world.seed },
    done: left === 0,
  };
}

function httpFault(res: ServerResponse, kind: SimulatorFault): void {
  switch (kind) {
    case 'silent':
      return;
    case 'not-json':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
      return;
    case 'status-500':
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal Server Error');
      return;
    case 'huge': {
      // Written in two parts, so it goes chunked with no length declared: the client has to
      // count what arrives.
      const body = JSON.stringify({ observation: 'x'.repeat(2 * 1024 * 1024), done: false });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.slice(0, 1024));
      res.end(body.slice(1024));
      return;
    }
    case 'refuse':
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'the simulator is busy' }));
      return;
    case 'bad-observation':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ observation: 42, done: false }));
      return;
  }
}

function isFault(value: unknown): value is { fault: SimulatorFault } {
  return typeof value === 'object' && value !== null && 'fault' in value;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
  });
}
