/**
 * The page's way to the backend inside the desktop app: `window.society`, which the Electron
 * preload exposes (main/electron/preload.cjs) with one function per contract method. ApiClient
 * (api.ts) uses it instead of the studio's WebSocket when it is there, and validates requests
 * and results against the contract exactly as it does over the socket; this module only carries
 * them and reads the answers' envelope, which is the WebSocket's response without its id.
 */
import type { ApiMethod, ApiProblem } from '../app/api/contract.ts';

/** What the desktop app's preload exposes as `window.society`. */
export type SocietyBridge = {
  readonly [M in ApiMethod]?: (params: unknown) => Promise<unknown>;
} & {
  /** Calls `listener` with each run event push; returns the function that stops it. */
  onRunEvent(listener: (push: unknown) => void): () => void;
};

/** A method's answer: its result, or the backend's error. */
export type IpcAnswer =
  | { result: unknown }
  | { error: { message: string; problems: ApiProblem[]; reason?: unknown } };

/** The bridge when the page runs in the desktop app; undefined in a browser (the studio). */
export function desktopBridge(): SocietyBridge | undefined {
  const candidate = (globalThis as { society?: unknown }).society;
  return typeof candidate === 'object' &&
    candidate !== null &&
    typeof (candidate as { onRunEvent?: unknown }).onRunEvent === 'function'
    ? (candidate as SocietyBridge)
    : undefined;
}

/**
 * Calls one method over the bridge. Params travel as JSON would carry them, as over the socket.
 * Never rejects: a missing method, a failed call or an answer that is not an envelope become an
 * error answer with a message for the person.
 */
export async function callOverIpc(
  bridge: SocietyBridge,
  method: ApiMethod,
  params: unknown,
): Promise<IpcAnswer> {
  const invoke = bridge[method];
  if (typeof invoke !== 'function') {
    return failure(`the desktop app does not offer ${method}; restart it after updating`);
  }
  let raw: unknown;
  try {
    const text = JSON.stringify(params);
    raw = await invoke(text === undefined ? undefined : JSON.parse(text));
  } catch (error) {
    return failure(
      `the desktop app did not answer ${method}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof raw !== 'object' || raw === null) {
    return failure(`the desktop app answered ${method} with something that is not an answer`);
  }
  if ('error' in raw) {
    const error = (raw.error ?? {}) as { message?: unknown; problems?: unknown; reason?: unknown };
    return failure(
      typeof error.message === 'string' ? error.message : 'request failed',
      Array.isArray(error.problems) ? (error.problems as ApiProblem[]) : [],
      error.reason,
    );
  }
  if ('result' in raw) return { result: raw.result };
  return failure(`the desktop app answered ${method} with something that is not an answer`);
}

/**
 * The run events in a push (main/api/push-batch.ts: a batch, in order), each with its run's id;
 * none when the message is not a batch of run events, and without any entry that is malformed.
 */
export function runEventsOf(
  message: unknown,
): Array<{ runId: string; event: Record<string, unknown> }> {
  if (typeof message !== 'object' || message === null) return [];
  const { push: kind, pushes } = message as Record<string, unknown>;
  if (kind !== 'run.events' || !Array.isArray(pushes)) return [];
  const events: Array<{ runId: string; event: Record<string, unknown> }> = [];
  for (const push of pushes) {
    if (typeof push !== 'object' || push === null) continue;
    const { push: each, runId, event } = push as Record<string, unknown>;
    if (each !== 'run.event' || typeof runId !== 'string') continue;
    if (typeof event !== 'object' || event === null) continue;
    events.push({ runId, event: event as Record<string, unknown> });
  }
  return events;
}

function failure(message: string, problems: ApiProblem[] = [], reason?: unknown): IpcAnswer {
  return { error: { message, problems, ...(reason === undefined ? {} : { reason }) } };
}
