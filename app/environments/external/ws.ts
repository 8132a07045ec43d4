/**
 * The simulator protocol over WebSocket: one text message per request, `{ id, type, …request }`,
 * answered by one message `{ id, …answer }`. The connection opens on the first request and is
 * closed by the client when its node is done, so a session must outlive its connection (the
 * session id, not the socket, names the episode).
 */
import WebSocket from 'ws';
import { formatBytes } from '../../providers/answer-guard.ts';
import { raceAbort } from '../../providers/retry.ts';
import type { RequestType } from './protocol.ts';
import {
  networkReason,
  oneLine,
  SimulatorFailure,
  type SimulatorTransport,
  type TransportOptions,
} from './transport.ts';

interface Pending {
  type: RequestType;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A transport over one WebSocket connection to `url`. */
export function wsTransport(url: string, options: TransportOptions): SimulatorTransport {
  let socket: WebSocket | undefined;
  let opened: Promise<WebSocket> | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (failure: (p: Pending) => unknown) => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(failure(p));
    }
  };

  const open = (type: RequestType, signal: AbortSignal): Promise<WebSocket> => {
    opened ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, { maxPayload: options.maxAnswerBytes, followRedirects: false });
      socket = ws;
      let isOpen = false;
      ws.on('open', () => {
        isOpen = true;
        resolve(ws);
      });
      ws.on('unexpected-response', (_request, response) => {
        reject(
          new SimulatorFailure(
            `refused the WebSocket connection for ${type} (HTTP ${response.statusCode})`,
          ),
        );
        response.resume();
        ws.terminate();
      });
      ws.on('error', (error) => {
        if (!isOpen) {
          reject(new SimulatorFailure(`could not be reached for ${type}: ${networkReason(error)}`));
          return;
        }
        const code = (error as { code?: string }).code;
        failAll((p) =>
          code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
            ? new SimulatorFailure(
                `answered ${p.type} with more than ${formatBytes(options.maxAnswerBytes)}, past the cap on one answer`,
              )
            : new SimulatorFailure(`broke off its answer to ${p.type}: ${networkReason(error)}`),
        );
      });
      ws.on('close', () => {
        failAll((p) => new SimulatorFailure(`closed the connection before answering ${p.type}`));
      });
      ws.on('message', (data, isBinary) => {
        const text = isBinary ? '' : data.toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          failAll(
            (p) =>
              new SimulatorFailure(
                isBinary
                  ? `answered ${p.type} with a binary message, not JSON text`
                  : `answered ${p.type} with something other than JSON: "${oneLine(text, 60)}"`,
              ),
          );
          return;
        }
        const id = (json as { id?: unknown } | null)?.id;
        const waiting = typeof id === 'number' ? pending.get(id) : undefined;
        if (!waiting) {
          // Requests go one at a time, so an answer with no id we asked for is out of
          // protocol for the one that is waiting.
          failAll(
            (p) =>
              new SimulatorFailure(
                `answered out of protocol to ${p.type}: id: expected the request's id, ${JSON.stringify(oneLine(String(id), 40))} was not asked`,
              ),
          );
          return;
        }
        pending.delete(id as number);
        waiting.resolve(json);
      });
    });
    return raceAbort(opened, signal, (reason) => reason);
  };

  return {
    async request(type, body, signal) {
      const ws = await open(type, signal);
      const id = nextId++;
      const answer = new Promise<unknown>((resolve, reject) => {
        pending.set(id, { type, resolve, reject });
      });
      ws.send(JSON.stringify({ id, type, ...body }));
      try {
        return await raceAbort(answer, signal, (reason) => reason);
      } finally {
        pending.delete(id);
      }
    },
    close() {
      pending.clear();
      socket?.removeAllListeners('close');
      socket?.on('error', () => {});
      socket?.terminate();
    },
  };
}
