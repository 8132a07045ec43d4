import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { RunEventPush } from '../../app/api/contract.ts';
import { STUDIO_PROTOCOL, studioProtocols } from '../../app/api/studio-auth.ts';
import { main as cli } from '../../app/cli/main.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { contentSecurityPolicy, type Studio, startStudio } from './server.ts';

const TEMPLATES = new URL('../../templates/', import.meta.url);
const VQA_TEXT = readFileSync(new URL('nlsom-vqa.society.json', TEMPLATES), 'utf8');
const EXAMPLE_PNG = readFileSync(new URL('nlsom-vqa.example.png', TEMPLATES));
/** The question templates/nlsom-vqa.cassette.json was recorded with (see README.md). */
const QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';
const KEY = 'sk-studio-test-0123456789abcdefXYZW';

let dir: string;
let dbFile: string;
let store: RunStore;
let studio: Studio;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'society-studio-'));
  dbFile = path.join(dir, 'society.db');
  const renderer = path.join(dir, 'renderer');
  mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>editor</title>');
  writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log("editor");');
  writeFileSync(path.join(dir, 'secret.txt'), 'outside the renderer');
  store = openRunStore(dbFile);
  studio = await startStudio({
    store,
    workspaceDir: path.join(dir, 'workspace'),
    rendererDir: renderer,
    // No keys from the machine running the tests.
    env: {},
    log: () => {},
  });
});

afterAll(async () => {
  await studio?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exactly these headers (fetch will not let a test set Host). */
function get(
  pathAndQuery: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: studio.port,
        path: pathAndQuery,
        method,
        headers: { host: `127.0.0.1:${studio.port}`, ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** How a test offers (or does not offer) the token when it opens the API socket. */
interface ConnectOptions {
  origin?: string;
  /** Subprotocols to offer; default: the page's, with the real token. */
  protocols?: string[];
  /** The socket's path and query; default `/api`. */
  path?: string;
  cookie?: string;
  /** The Host header; default the one the URL gives. */
  host?: string;
  /** Every response header of an accepted upgrade lands here. */
  upgradeHeaders?: Record<string, string | string[] | undefined>;
}

/** Opens the API socket; resolves with the socket, or the status or error that refused it. */
function connect(options: ConnectOptions = {}): Promise<WebSocket | { refused: number | string }> {
  const url = `ws://127.0.0.1:${studio.port}${options.path ?? '/api'}`;
  const ws = new WebSocket(url, options.protocols ?? studioProtocols(studio.token), {
    origin: options.origin ?? `http://127.0.0.1:${studio.port}`,
    headers: {
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.host ? { host: options.host } : {}),
    },
  });
  ws.once('upgrade', (res) => Object.assign(options.upgradeHeaders ?? {}, res.headers));
  return new Promise((resolve) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve({ refused: res.statusCode ?? 0 }));
    ws.once('error', (error) => resolve({ refused: error.message }));
  });
}

/** A page's side of the API: requests by id, pushed run events, and every raw frame received. */
class Page {
  readonly frames: string[] = [];
  readonly pushes: RunEventPush[] = [];
  #next = 1;
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  readonly #waiters: Array<() => void> = [];

  readonly ws: WebSocket;

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      const text = data.toString();
      this.frames.push(text);
      const message = JSON.parse(text);
      if (message.push === 'run.event') {
        this.pushes.push(message);
        for (const wake of this.#waiters.splice(0)) wake();
      } else this.#pending.get(message.id)?.(message);
    });
  }

  static async open(): Promise<Page> {
    const ws = await connect();
    if (!(ws instanceof WebSocket)) throw new Error(`refused: ${ws.refused}`);
    return new Page(ws);
  }

  /** Sends a raw frame and waits for the answer with `id`. */
  sendRaw(text: string, id: number): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.ws.send(text);
    });
  }

  /** The id of the last request sent. */
  get lastId(): number {
    return this.#next - 1;
  }

  /** The result of a method, or throws with the error message (and problems as `cause`). */
  async call<T = Record<string, unknown>>(method: string, params: unknown = {}): Promise<T> {
    const id = this.#next++;
    const answer = await this.sendRaw(JSON.stringify({ id, method, params }), id);
    if ('error' in answer) {
      const error = answer.error as { message: string; problems?: unknown };
      throw new Error(error.message, { cause: error.problems });
    }
    return answer.result as T;
  }

  /** Waits for a pushed event of a run that matches. */
  async event(
    runId: string,
    match: (event: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.pushes.find((p) => p.runId === runId && match(p.event));
      if (found) return found.event;
      await new Promise<void>((wake) => this.#waiters.push(wake));
    }
  }

  eventsOf(runId: string): Array<Record<string, unknown>> {
    return this.pushes.filter((p) => p.runId === runId).map((p) => p.event);
  }

  close(): void {
    this.ws.close();
  }
}

function vqaDocument(): Record<string, unknown> {
  return JSON.parse(VQA_TEXT);
}

/** What `society run … --replay … --json` prints for the template's replay. */
async function cliReplayAnswer(): Promise<unknown> {
  const out: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await cli([
      'run',
      'templates/nlsom-vqa.society.json',
      '--replay',
      'templates/nlsom-vqa.cassette.json',
      '--input',
      `question=${QUESTION}`,
      '--input',
      'image=@templates/nlsom-vqa.example.png',
      '--db',
      path.join(dir, 'cli.db'),
      '--json',
      '-q',
    ]);
    expect(code).toBe(0);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return JSON.parse(out.join('')).outputs.answer;
}

describe('the studio server: who may talk to it', () => {
  it('listens on 127.0.0.1 and prints a URL with a 32-byte hex token', () => {
    expect(studio.url).toBe(`http://127.0.0.1:${studio.port}/?token=${studio.token}`);
    expect(studio.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it("serves the editor's files without the token, and never sets a cookie", async () => {
    for (const url of ['/', '/assets/app.js', `/?token=${studio.token}`, '/?token=wrong']) {
      const answer = await get(url);
      expect(answer.status, url).toBe(200);
      expect(answer.headers['set-cookie'], url).toBeUndefined();
    }
    // Nor on a refusal of any kind.
    for (const [url, headers, method] of [
      ['/missing.js', {}, 'GET'],
      ['/', { host: 'evil.example' }, 'GET'],
      ['/', {}, 'POST'],
    ] as const) {
      const answer = await get(url, headers, method);
      expect(answer.status, `${method} ${url}`).toBeGreaterThanOrEqual(400);
      expect(answer.headers['set-cookie'], `${method} ${url}`).toBeUndefined();
    }
  });

  it('refuses a request whose Host is not 127.0.0.1:PORT or localhost:PORT', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${studio.port}`,
      '127.0.0.1',
      `127.0.0.1:1`,
    ]) {
      const answer = await get(`/?token=${studio.token}`, { host });
      expect(answer.status, host).toBe(403);
    }
    expect(
      (await get(`/?token=${studio.token}`, { host: `localhost:${studio.port}` })).status,
    ).toBe(200);
  });

  it('serves the page with CSP, nosniff and no referrer (the first URL holds the token)', async () => {
    const page = await get(`/?token=${studio.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>editor</title>');
    expect(page.headers['content-security-policy']).toBe(contentSecurityPolicy(studio.port));
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cross-origin-resource-policy']).toBe('same-origin');
    const script = await get('/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('lists no directories and serves nothing outside the renderer', async () => {
    for (const url of [
      '/assets',
      '/assets/',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const answer = await get(url);
      expect(answer.status, url).toBeGreaterThanOrEqual(400);
      expect(answer.body).not.toContain('outside the renderer');
    }
  });

  it('tells the person to build the editor when the renderer is not built', async () => {
    const bare = await startStudio({
      store,
      workspaceDir: path.join(dir, 'workspace'),
      rendererDir: path.join(dir, 'not-built'),
      env: {},
      log: () => {},
    });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port: bare.port, path: `/?token=${bare.token}` }, (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve(body));
        })
          .on('error', reject)
          .end();
      });
      expect(answer).toContain('npm run build');
    } finally {
      await bare.close();
    }
  });

  it('opens the API socket with the token offered as a subprotocol, answering without it', async () => {
    const upgradeHeaders: Record<string, string | string[] | undefined> = {};
    const ws = await connect({ upgradeHeaders });
    expect(ws).toBeInstanceOf(WebSocket);
    const socket = ws as WebSocket;
    expect(socket.protocol).toBe(STUDIO_PROTOCOL);
    expect(JSON.stringify(upgradeHeaders)).not.toContain(studio.token);
    expect(upgradeHeaders['set-cookie']).toBeUndefined();
    socket.close();
  });

  it('refuses the API socket with the token only in a cookie or the URL, or a wrong one', async () => {
    const cookie = `studio_token=${studio.token}`;
    // The cookie the studio used to set, sent as a page on another port would send it.
    expect(await connect({ protocols: [], cookie })).toEqual({ refused: 403 });
    expect(await connect({ protocols: [STUDIO_PROTOCOL], cookie })).toEqual({ refused: 403 });
    expect(await connect({ protocols: [], path: `/api?token=${studio.token}` })).toEqual({
      refused: 403,
    });
    expect(await connect({ protocols: [] })).toEqual({ refused: 403 });
    expect(await connect({ protocols: studioProtocols('a'.repeat(64)) })).toEqual({
      refused: 403,
    });
    // The token without the studio protocol, or offered twice, is not the page's handshake.
    expect(await connect({ protocols: [studioProtocols(studio.token)[1]!] })).toEqual({
      refused: 403,
    });
    expect(
      await connect({
        protocols: [...studioProtocols(studio.token), studioProtocols('b'.repeat(64))[1]!],
      }),
    ).toEqual({ refused: 403 });
  });

  it('refuses the API socket from another origin or host, or on another path, token or not', async () => {
    expect(await connect({ origin: 'http://evil.example' })).toEqual({ refused: 403 });
    expect(await connect({ origin: `http://evil.example:${studio.port}` })).toEqual({
      refused: 403,
    });
    // Another port of 127.0.0.1 is another origin.
    expect(await connect({ origin: `http://127.0.0.1:${studio.port + 1}` })).toEqual({
      refused: 403,
    });
    expect(await connect({ host: `evil.example:${studio.port}` })).toEqual({ refused: 403 });
    expect(await connect({ path: '/other' })).toEqual({ refused: 403 });
  });

  it('answers malformed messages with an error and keeps serving', async () => {
    const page = await Page.open();
    try {
      const notJson = await page.sendRaw('{nope', -1);
      expect(notJson).toEqual({ id: -1, error: { message: expect.stringMatching(/malformed/) } });
      const noMethod = await page.sendRaw(JSON.stringify({ id: 7, params: {} }), 7);
      expect(noMethod).toMatchObject({
        id: 7,
        error: { message: expect.stringMatching(/malformed/) },
      });
      await expect(page.call('fs.readFile', { path: '/etc/passwd' })).rejects.toThrow(
        'unknown method "fs.readFile"',
      );
      await expect(page.call('runs.list', { limit: 'all' })).rejects.toThrow(
        /invalid params for runs.list: limit/,
      );
      await expect(page.call('templates.list')).resolves.toBeInstanceOf(Array);
    } finally {
      page.close();
    }
  });
});

describe('the studio API', () => {
  it('lists the VQA template with its cassette and a worst-case estimate, and opens it by name only', async () => {
    const page = await Page.open();
    try {
      const templates = await page.call<Array<Record<string, unknown>>>('templates.list');
      const vqa = templates.find((t) => t.file === 'nlsom-vqa.society.json');
      expect(vqa).toMatchObject({
        name: 'NLSOM visual question answering (monarchy)',
        providers: ['openai'],
        hasCassette: true,
        estimate: { calls: 17 },
      });
      const estimate = vqa!.estimate as { calls: number; tokens: number; costUsd: number };
      expect(estimate.tokens).toBeGreaterThan(0);
      expect(estimate.costUsd).toBeGreaterThan(0);
      const opened = await page.call<{ text: string }>('templates.open', {
        file: 'nlsom-vqa.society.json',
      });
      expect(opened.text).toBe(VQA_TEXT);
      await expect(page.call('templates.open', { file: '../package.json' })).rejects.toThrow(
        /no template/,
      );
    } finally {
      page.close();
    }
  });

  it('validates and compiles documents; problems name the node', async () => {
    const page = await Page.open();
    try {
      const broken = vqaDocument();
      (broken.edges as Array<{ id: string }>).splice(
        (broken.edges as Array<{ id: string }>).findIndex((e) => e.id === 'q-leader'),
        1,
      );
      const checked = await page.call<{ ok: boolean; problems: Array<Record<string, string>> }>(
        'document.validate',
        { document: broken },
      );
      expect(checked.ok).toBe(false);
      expect(checked.problems).toContainEqual({
        path: 'nodes[7]',
        node: 'leader',
        message: 'required input "question" (text) is not connected',
      });
      const compiled = await page.call<{ ok: boolean; machines: { compilerVersion: number } }>(
        'document.compile',
        { document: vqaDocument() },
      );
      expect(compiled.ok).toBe(true);
      expect(compiled.machines.compilerVersion).toBeTypeOf('number');
      // A run of a broken document is refused with the same problems.
      const refused = await page
        .call('run.start', { document: broken, simulate: true })
        .catch((error: Error) => error);
      expect((refused as Error).message).toBe('the document has problems');
      expect((refused as Error).cause).toEqual(checked.problems);
    } finally {
      page.close();
    }
  });

  it('answers another page while a run renders a slow template, and stops it at once', async () => {
    // Nine million loop passes: seconds of rendering within the limits this document sets.
    const slow = {
      version: 1,
      name: 'slow template',
      settings: { limits: { templateMs: 10_000, templateIterations: 5_000_000 } },
      nodes: [
        {
          id: 't',
          type: 'transform',
          position: { x: 0, y: 0 },
          data: {
            template: '{% for a in (1..3000) %}{% for b in (1..3000) %}{% endfor %}{% endfor %}',
          },
        },
        { id: 'o', type: 'output', position: { x: 200, y: 0 }, data: { name: 'o' } },
      ],
      edges: [{ id: 'e', source: 't', sourceHandle: 'value', target: 'o', targetHandle: 'value' }],
    };
    const runner = await Page.open();
    const other = await Page.open();
    try {
      const { runId } = await runner.call<{ runId: string }>('run.start', {
        document: slow,
        simulate: true,
      });
      await runner.event(runId, (e) => e.type === 'node.started' && e.node === 't');
      const checked = await other.call<{ ok: boolean }>('document.validate', {
        document: vqaDocument(),
      });
      expect(checked.ok).toBe(true);
      // The other page was answered while the template was still rendering.
      expect(runner.eventsOf(runId).some((e) => e.type === 'run.finished')).toBe(false);
      await runner.call('run.control', { runId, action: 'cancel' });
      const finished = await runner.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('cancelled');
    } finally {
      runner.close();
      other.close();
    }
  });

  it('writes and reads workspace files by name, and refuses paths', async () => {
    const page = await Page.open();
    try {
      expect(await page.call('files.list')).toEqual([]);
      await page.call('files.write', { name: 'mine.society.json', text: VQA_TEXT });
      expect(await page.call('files.read', { name: 'mine.society.json' })).toEqual({
        text: VQA_TEXT,
      });
      const listed = await page.call<Array<{ name: string; modifiedAt: number }>>('files.list');
      expect(listed.map((f) => f.name)).toEqual(['mine.society.json']);
      expect(listed[0]!.modifiedAt).toBeGreaterThan(0);
      for (const name of [
        '../x.society.json',
        '..\\x.society.json',
        'sub/x.society.json',
        '/tmp/x.society.json',
        'C:\\x.society.json',
        'x.json',
        '.society.json',
        '..society.json',
      ]) {
        await expect(page.call('files.write', { name, text: '{}' }), name).rejects.toThrow(
          /not a (plain file name|document name)|may not start with a dot/,
        );
        await expect(page.call('files.read', { name }), name).rejects.toThrow();
      }
      await expect(page.call('files.read', { name: 'missing.society.json' })).rejects.toThrow(
        'there is no document "missing.society.json" in the workspace',
      );
    } finally {
      page.close();
    }
  });

  it('replays the VQA template over the socket to the answer the CLI prints, and records it', async () => {
    const page = await Page.open();
    try {
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        replayTemplate: 'nlsom-vqa',
        inputs: { question: QUESTION, image: 'example' },
      });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('succeeded');
      // The page learns the run id before any of its events arrive.
      const response = page.frames.indexOf(`{"id":${page.lastId},"result":{"runId":"${runId}"}}`);
      const firstPush = page.frames.findIndex((f) =>
        f.includes(`"push":"run.event","runId":"${runId}"`),
      );
      expect(response).toBeGreaterThanOrEqual(0);
      expect(firstPush).toBeGreaterThan(response);
      const answer = (finished.outputs as { answer: string }).answer;
      expect(answer).toBe(await cliReplayAnswer());
      expect(answer).toBe('[simulated] (c)');

      const events = page.eventsOf(runId);
      expect(events[0]).toMatchObject({ type: 'run.started', mode: 'replay', seq: 1 });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'model.response')).toHaveLength(17);

      // run.finished is pushed once the store holds the run's end.
      const runs = await page.call<Array<Record<string, unknown>>>('runs.list', {});
      expect(runs.find((r) => r.id === runId)).toMatchObject({
        graph: 'NLSOM visual question answering (monarchy)',
        status: 'succeeded',
        calls: 17,
      });
      const shown = await page.call<{ run: Record<string, unknown>; events: unknown[] }>(
        'runs.show',
        { runId },
      );
      expect(shown.run).toMatchObject({ id: runId, mode: 'replay', status: 'succeeded' });
      expect(shown.events).toHaveLength(events.length);
      await expect(page.call('run.control', { runId, action: 'pause' })).rejects.toThrow(
        `run ${runId} is not running here (it is succeeded)`,
      );
    } finally {
      page.close();
    }
  });

  it('pauses at a breakpoint, steps and resumes', async () => {
    const page = await Page.open();
    try {
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        replayTemplate: 'nlsom-vqa.society.json',
        inputs: { question: QUESTION, image: 'example' },
        breakpoints: [{ round: 2 }],
      });
      const paused = await page.event(runId, (e) => e.type === 'paused');
      expect(paused).toMatchObject({
        reason: 'breakpoint',
        at: { kind: 'round', loop: 'storm', round: 2 },
      });
      expect(page.eventsOf(runId).some((e) => e.type === 'run.finished')).toBe(false);

      await page.call('run.breakpoints', { runId, breakpoints: [] });
      expect(await page.call('run.control', { runId, action: 'step', step: 'node' })).toEqual({
        paused: false,
      });
      const stepped = await page.event(runId, (e) => e.type === 'paused' && e.reason === 'step');
      expect(stepped.at).toMatchObject({ kind: 'node', node: 'organizer', round: 2 });
      expect(await page.call('run.control', { runId, action: 'resume' })).toEqual({
        paused: false,
      });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished).toMatchObject({
        status: 'succeeded',
        outputs: { answer: '[simulated] (c)' },
      });

      await expect(
        page.call('run.control', { runId: 'no-such-run', action: 'resume' }),
      ).rejects.toThrow('there is no running run "no-such-run"');
    } finally {
      page.close();
    }
  });

  it('cancels a run held at its start', async () => {
    const page = await Page.open();
    try {
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        replayTemplate: 'nlsom-vqa',
        inputs: { question: QUESTION, image: 'example' },
        startPaused: true,
      });
      await page.event(runId, (e) => e.type === 'paused');
      await page.call('run.control', { runId, action: 'cancel' });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('cancelled');
      const shown = await page.call<{ run: { status: string } }>('runs.show', { runId });
      expect(shown.run.status).toBe('cancelled');
    } finally {
      page.close();
    }
  });

  it('refuses "example" outside a template replay and takes an image as a data URL', async () => {
    const page = await Page.open();
    try {
      await expect(
        page.call('run.start', {
          document: vqaDocument(),
          simulate: true,
          inputs: { question: QUESTION, image: 'example' },
        }),
      ).rejects.toThrow(/"example" is only available when replaying a template/);
      await expect(
        page.call('run.start', {
          document: vqaDocument(),
          simulate: true,
          inputs: { question: QUESTION, image: '/etc/passwd' },
        }),
      ).rejects.toThrow(/input "image" is an image/);
      await expect(
        page.call('run.start', {
          document: vqaDocument(),
          replayTemplate: '../templates/nlsom-vqa',
          inputs: { question: QUESTION, image: 'example' },
        }),
      ).rejects.toThrow(/there is no template/);
    } finally {
      page.close();
    }
  });

  it('refuses, to anyone holding the token, to point a key at another server', async () => {
    const page = await Page.open();
    const evil = 'http://127.0.0.1:9/v1';
    try {
      // Redirecting a built-in provider that uses a key.
      await expect(
        page.call('settings.providers.save', { name: 'openai', baseUrl: evil }),
      ).rejects.toThrow(
        `changing where provider "openai" points, which uses the key in OPENAI_API_KEY, cannot be done from this page (anything that got hold of its access could send your key to its own server): run \`society providers --add openai=${evil}\` in a terminal, or use the desktop app`,
      );
      await expect(
        page.call('settings.providers.save', {
          name: 'openai',
          baseUrl: evil,
          apiKeyEnv: 'OPENAI_API_KEY',
        }),
      ).rejects.toThrow(`society providers --add openai=${evil} --key-env OPENAI_API_KEY`);
      // A new provider reading an existing key, or any other variable of the backend's.
      for (const apiKeyEnv of ['OPENAI_API_KEY', 'HF_TOKEN', 'AWS_SECRET_ACCESS_KEY']) {
        await expect(
          page.call('settings.providers.save', { name: 'mirror', baseUrl: evil, apiKeyEnv }),
        ).rejects.toThrow(
          `adding provider "mirror", which sends the key in ${apiKeyEnv}, cannot be done from this page`,
        );
      }
      // A keyless local server is added, but giving it a key afterwards is refused too.
      await page.call('settings.providers.save', {
        name: 'lab',
        baseUrl: 'http://127.0.0.1:8000/v1',
      });
      await expect(
        page.call('settings.providers.save', {
          name: 'lab',
          previousName: 'lab',
          baseUrl: 'http://127.0.0.1:8000/v1',
          apiKeyEnv: 'OPENAI_API_KEY',
        }),
      ).rejects.toThrow(
        /changing where provider "lab" points, which uses the key in OPENAI_API_KEY/,
      );
      // Renaming it onto a built-in name that uses a key is a redirection as well.
      await expect(
        page.call('settings.providers.save', {
          name: 'huggingface',
          previousName: 'lab',
          baseUrl: 'http://127.0.0.1:8000/v1',
        }),
      ).rejects.toThrow(/changing where provider "huggingface" points/);
      // What does not move a key still works: calls at once for the built-in openai.
      await page.call('settings.providers.save', {
        name: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        concurrency: 2,
      });
      expect(store.listProviderProfiles()).toEqual([
        { name: 'lab', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1' },
        {
          name: 'openai',
          kind: 'openai-compatible',
          baseUrl: 'https://api.openai.com/v1',
          apiKeyEnv: 'OPENAI_API_KEY',
          concurrency: 2,
        },
      ]);
      await page.call('settings.providers.remove', { name: 'lab' });
      await page.call('settings.providers.remove', { name: 'openai' });
    } finally {
      page.close();
    }
  });

  it('sets a key without ever sending or storing it', async () => {
    const page = await Page.open();
    try {
      expect(await page.call('settings.keys')).toEqual([
        { name: 'OPENAI_API_KEY', configured: false },
        { name: 'HF_TOKEN', configured: false },
      ]);
      expect(await page.call('settings.setKey', { name: 'OPENAI_API_KEY', value: KEY })).toEqual({
        name: 'OPENAI_API_KEY',
        configured: true,
        last4: 'XYZW',
      });
      await expect(
        page.call('settings.setKey', { name: 'PATH', value: 'x'.repeat(20) }),
      ).rejects.toThrow(/invalid params/);
      await expect(
        page.call('settings.setKey', { name: 'HF_TOKEN', value: 'short' }),
      ).rejects.toThrow(/does not look like a key/);

      // A run whose question holds the key: it reaches the model, never the page or the store.
      const dataUrl = `data:image/png;base64,${EXAMPLE_PNG.toString('base64')}`;
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        simulate: true,
        inputs: { question: `Is ${KEY} a key? (a) yes (b) no`, image: dataUrl },
      });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('succeeded');
      const shown = await page.call('runs.show', { runId });
      expect(JSON.stringify(shown)).toContain('[redacted]');
      // The failure of a key-holding replay is redacted too.
      const { runId: failing } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        replayTemplate: 'nlsom-vqa',
        inputs: { question: `Is ${KEY} a key?`, image: 'example' },
      });
      const failed = await page.event(failing, (e) => e.type === 'run.finished');
      expect(failed.status).toBe('failed');
      expect(await page.call('settings.keys')).toContainEqual({
        name: 'OPENAI_API_KEY',
        configured: true,
        last4: 'XYZW',
      });
      expect(await page.call('settings.clearKey', { name: 'HF_TOKEN' })).toEqual({
        name: 'HF_TOKEN',
        configured: false,
      });

      expect(page.frames.length).toBeGreaterThan(50);
      expect(page.frames.join('\n')).toContain('[redacted]');
      for (const frame of page.frames) expect(frame).not.toContain(KEY);
      expect(page.frames.join('\n')).not.toContain(KEY.slice(0, 20));
    } finally {
      page.close();
    }
    // Every byte of the database (and its write-ahead log) once the studio has stopped.
    await studio.close();
    store.close();
    for (const suffix of ['', '-wal', '-shm']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(`${dbFile}${suffix}`);
      } catch {
        continue;
      }
      expect(bytes.includes(KEY), `society.db${suffix}`).toBe(false);
      expect(bytes.includes(KEY.slice(0, 20)), `society.db${suffix}`).toBe(false);
    }
    expect(readFileSync(dbFile).includes('[redacted]')).toBe(true);
  });
});
