/**
 * The typed client for the backend contract (app/api/contract.ts) over the studio's WebSocket.
 * Requests and responses pair up by id; every request is checked against the contract before it
 * leaves and every result after it arrives, so a mismatch between page and server shows up as a
 * clear error here rather than as a wrong screen later. Run events are pushed on the same socket.
 * In the desktop app the same client goes over Electron IPC instead (transport-ipc.ts), with the
 * same checks.
 */
import {
  type ApiMethod,
  type ApiParams,
  type ApiProblem,
  type ApiResult,
  contract,
} from '../app/api/contract.ts';
import { RefusalReason } from '../app/api/spending-contract.ts';
import { studioProtocols } from '../app/api/studio-auth.ts';
import { takeStudioToken } from './studio-token.ts';
import { callOverIpc, desktopBridge, runEventsOf, type SocietyBridge } from './transport-ipc.ts';

/**
 * `locked`: a studio page opened without the printed address's token, so it does not try to
 * connect (the studio would refuse it). `stopped`: nothing answers at the studio's address; the
 * page looks again now and then, further apart each time, and reconnects when it is back.
 * `restarted`: a studio answers at this address but refuses this tab's token (a new launch has
 * a new one), so the page stops asking: the new address is printed where the studio runs.
 */
export type ConnectionStatus =
  | 'connecting'
  | 'open'
  | 'closed'
  | 'locked'
  | 'stopped'
  | 'restarted';

export class ApiError extends Error {
  readonly problems: ApiProblem[];
  /** Why a run was refused, when the page can offer a way forward. */
  readonly reason: RefusalReason | undefined;
  constructor(message: string, problems: ApiProblem[] = [], reason?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.problems = problems;
    const known = RefusalReason.safeParse(reason);
    this.reason = known.success ? known.data : undefined;
  }
}

interface Pending {
  method: ApiMethod;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export type RunEventListener = (runId: string, event: Record<string, unknown>) => void;

/**
 * How long to wait before looking for the studio again after losing it: each failed attempt
 * shows in the console, so they come further apart, up to one a minute.
 */
const RECONNECT_MS = [1000, 3000, 8000, 15_000, 30_000, 60_000];

/** Whether something answers at `url` (the page's own address); no error when it does. */
export type Probe = () => Promise<boolean>;

const probeStudio: Probe = () =>
  fetch('/index.html', { method: 'HEAD', cache: 'no-store' }).then(
    (r) => r.ok,
    () => false,
  );

export class ApiClient {
  readonly #url: string;
  /** The studio's token, offered as a subprotocol when the socket opens. */
  readonly #token: string | undefined;
  /** The desktop app's IPC bridge; when set, the socket is never opened. */
  readonly #bridge: SocietyBridge | undefined;
  #stopBridgeEvents: (() => void) | undefined;
  #socket: WebSocket | undefined;
  /** The studio answered a look after it stopped, and the socket is being tried again. */
  #answered = false;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  /** Requests made while the socket was not open yet; sent once it opens. */
  #queue: string[] = [];
  #status: ConnectionStatus = 'closed';
  #attempt = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  readonly #probe: Probe;
  #runListeners = new Set<RunEventListener>();
  #statusListeners = new Set<(status: ConnectionStatus) => void>();

  constructor(
    url: string,
    bridge: SocietyBridge | undefined = desktopBridge(),
    token: string | undefined = undefined,
    probe: Probe = probeStudio,
  ) {
    this.#url = url;
    this.#bridge = bridge;
    this.#token = token;
    this.#probe = probe;
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  /** Calls a contract method; rejects with an ApiError carrying the backend's problems. */
  async call<M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>> {
    const checked = contract[method].params.safeParse(params);
    if (!checked.success) {
      throw new ApiError(`bad parameters for ${method}: ${checked.error.issues[0]?.message ?? ''}`);
    }
    const raw = this.#bridge
      ? await this.#callOverIpc(this.#bridge, method, checked.data)
      : await this.#callOverSocket(method, checked.data);
    const result = contract[method].result.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new ApiError(
        `the backend answered ${method} with an unexpected shape (${issue?.path.join('.') || 'result'}: ${issue?.message ?? ''})`,
      );
    }
    return result.data as ApiResult<M>;
  }

  async #callOverIpc(bridge: SocietyBridge, method: ApiMethod, params: unknown): Promise<unknown> {
    const answer = await callOverIpc(bridge, method, params);
    if ('error' in answer)
      throw new ApiError(answer.error.message, answer.error.problems, answer.error.reason);
    return answer.result;
  }

  #callOverSocket(method: ApiMethod, params: unknown): Promise<unknown> {
    // Lost: a request would only knock on the studio's door again; the banner says what to do.
    if (this.#status === 'restarted' || this.#status === 'stopped') {
      return Promise.reject(
        new ApiError(`the studio is not connected (${this.#status}), so ${method} was not sent`),
      );
    }
    const id = this.#nextId++;
    const text = JSON.stringify({ id, method, params });
    const answer = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
    });
    this.#send(text);
    return answer;
  }

  /** Listens to pushed run events; returns the function that stops listening. */
  onRunEvent(listener: RunEventListener): () => void {
    this.#runListeners.add(listener);
    return () => this.#runListeners.delete(listener);
  }

  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.#statusListeners.add(listener);
    listener(this.#status);
    return () => this.#statusListeners.delete(listener);
  }

  connect(): void {
    if (this.#bridge) {
      // IPC has no connection to open or lose: listen to run events once, and stay open.
      this.#stopBridgeEvents ??= this.#bridge.onRunEvent((push) => this.#runEvents(push));
      this.#setStatus('open');
      return;
    }
    if (this.#socket) return;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    if (!this.#token) {
      this.#setStatus('locked');
      return;
    }
    this.#setStatus('connecting');
    // The token goes in the handshake's Sec-WebSocket-Protocol header, never in a cookie
    // (app/api/studio-auth.ts says why).
    const socket = new WebSocket(this.#url, studioProtocols(this.#token));
    this.#socket = socket;
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      this.#answered = false;
      this.#attempt = 0;
      this.#setStatus('open');
      for (const text of this.#queue.splice(0)) socket.send(text);
    });
    socket.addEventListener('message', (event) => this.#receive(event.data));
    socket.addEventListener('close', () => {
      this.#socket = undefined;
      // Answers to requests in flight are lost with the socket; say so instead of hanging.
      this.#rejectAll((method) => `connection to the studio closed during ${method}`);
      void this.#afterClose(opened);
    });
  }

  /**
   * After the socket closed: a socket that was open is tried again once the studio answers at
   * this address; one refused while the studio answers means the studio restarted with a new
   * token, and is not tried again (each refusal is an error in the console, and no later try
   * would do better) until the person asks (`reconnect`).
   */
  async #afterClose(wasOpen: boolean): Promise<void> {
    if (wasOpen) this.#attempt = 0;
    // A socket refused right after the studio answered again: look at once, so the page says
    // it restarted now rather than after the next, longer wait.
    const answeredJustNow = this.#answered;
    this.#answered = false;
    if (this.#status !== 'stopped') this.#setStatus('closed');
    const delay = RECONNECT_MS[Math.min(this.#attempt++, RECONNECT_MS.length - 1)]!;
    await new Promise((resolve) => {
      this.#retry = setTimeout(resolve, wasOpen || answeredJustNow ? 0 : delay);
    });
    if (this.#socket) return;
    if (await this.#probe()) {
      if (wasOpen || this.#status === 'stopped') {
        this.#answered = !wasOpen;
        this.connect();
      } else this.#setStatus('restarted');
      return;
    }
    this.#setStatus('stopped');
    this.#retry = setTimeout(() => void this.#afterClose(false), delay);
  }

  /** Tries the studio again now (the person pressed Reconnect). */
  reconnect(): void {
    this.#attempt = 0;
    this.connect();
  }

  #send(text: string): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(text);
    else if (!this.#bridge && !this.#token) {
      this.#setStatus('locked');
      this.#rejectAll('this page has no studio token: open the address the studio printed');
    } else {
      this.#queue.push(text);
      this.connect();
    }
  }

  #receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data) as Record<string, unknown>;
    } catch {
      console.warn('ignoring a message from the studio that is not JSON');
      return;
    }
    if (message.push === 'run.events') {
      this.#runEvents(message);
      return;
    }
    const id = message.id;
    if (typeof id !== 'number') return;
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if ('error' in message) {
      const error = (message.error ?? {}) as {
        message?: unknown;
        problems?: unknown;
        reason?: unknown;
      };
      const problems = Array.isArray(error.problems) ? (error.problems as ApiProblem[]) : [];
      pending.reject(
        new ApiError(
          typeof error.message === 'string' ? error.message : 'request failed',
          problems,
          error.reason,
        ),
      );
    } else pending.resolve(message.result);
  }

  /** Hands each run event of a pushed batch to the listeners, in order. */
  #runEvents(push: unknown): void {
    for (const { runId, event } of runEventsOf(push)) {
      for (const listener of this.#runListeners) listener(runId, event);
    }
  }

  /** Fails every request waiting for an answer with `message`. */
  #rejectAll(message: string | ((method: ApiMethod) => string)): void {
    for (const [id, pending] of this.#pending) {
      pending.reject(new ApiError(typeof message === 'string' ? message : message(pending.method)));
      this.#pending.delete(id);
    }
  }

  #setStatus(status: ConnectionStatus): void {
    this.#status = status;
    for (const listener of this.#statusListeners) listener(status);
  }
}

let client: ApiClient | undefined;

/**
 * The page's client, created on first use: over the desktop app's IPC bridge when there is one,
 * else over the studio's socket with the token the printed address gave this tab
 * (renderer/studio-token.ts).
 */
export function api(): ApiClient {
  if (!client) {
    const bridge = desktopBridge();
    client = new ApiClient(
      `${location.origin.replace(/^http/, 'ws')}/api`,
      bridge,
      bridge ? undefined : takeStudioToken(),
    );
  }
  return client;
}
