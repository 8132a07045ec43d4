/**
 * What the studio server's tests share: one studio per test file over a temporary store and a
 * stand-in renderer, raw HTTP requests, the API socket, and a page's side of the API.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import WebSocket from 'ws';
import type { RunEventPush } from '../../app/api/contract.ts';
import { studioProtocols } from '../../app/api/studio-auth.ts';
import { main as cli } from '../../app/cli/main.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { type Studio, startStudio } from './server.ts';

const TEMPLATES = new URL('../../templates/', import.meta.url);
export const VQA_TEXT = readFileSync(new URL('nlsom-vqa.society.json', TEMPLATES), 'utf8');
export const EXAMPLE_PNG = readFileSync(new URL('nlsom-vqa.example.png', TEMPLATES));
/** The question templates/nlsom-vqa.cassette.json was recorded with (see README.md). */
export const QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';
/** A key the tests enter; it must never reach a frame or a byte of the store. */
export const KEY = 'sk-studio-test-0123456789abcdefXYZW';

/** The test file's temporary folder: the renderer, the workspace and the database. */
export let dir: string;
export let dbFile: string;
/** The studio's store, open until the file's tests are done (or a test closes it). */
export let store: RunStore;
/** The studio the file's tests talk to, serving a stand-in renderer. */
export let studio: Studio;

/** Starts one studio for the calling test file's tests, and stops it after them. */
export function withStudio(): void {
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
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exactly these headers (fetch will not let a test set Host). */
export function get(
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
export interface ConnectOptions {
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
export function connect(
  options: ConnectOptions = {},
): Promise<WebSocket | { refused: number | string }> {
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
export class Page {
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
      if (message.push === 'run.events') {
        this.pushes.push(...message.pushes);
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

/** A fresh copy of the VQA template's document. */
export function vqaDocument(): Record<string, unknown> {
  return JSON.parse(VQA_TEXT);
}

/** What `society run … --replay … --json` prints for the template's replay. */
export async function cliReplayAnswer(): Promise<unknown> {
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
