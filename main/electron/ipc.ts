/**
 * The editor's API over Electron IPC: one channel per contract method (`api:<method>`), and one
 * channel the backend pushes run events on. Everything here is plain TypeScript so it is tested
 * under Node; main.ts registers `dispatch` with `ipcMain.handle` once per method (S7).
 *
 * The dispatcher is the IPC twin of the studio's WebSocket handler (main/studio/server.ts): it
 * refuses senders that are not the editor, parses params with the contract, calls the shared
 * handlers, checks the result against the contract again, and answers with the same envelope
 * as the WebSocket (`{ result }` or `{ error: { message, problems? } }`). It never throws: an
 * error thrown out of an `ipcMain.handle` callback would reach the page with its text and
 * Electron's wrapping, so bugs are logged here (stack included, keys redacted) and the page gets
 * a one-line message.
 */
import {
  type ApiMethod,
  type ApiProblem,
  contract,
  type RunEventsPush,
} from '../../app/api/contract.ts';
import type { RefusalReason } from '../../app/api/spending-contract.ts';
import { ApiError } from '../api/errors.ts';
import type { ApiHandlers } from '../api/handlers.ts';
import { isTrustedSender } from './policy.ts';

/** The prefix of every API channel. */
const CHANNEL_PREFIX = 'api:';

/** The channel the backend pushes run events on, to the editor window only. */
export const RUN_EVENT_CHANNEL = 'api:run.event';

/** Every contract method, in the contract's order. */
export const API_METHODS = Object.keys(contract) as ApiMethod[];

/** The IPC channel of a contract method. */
export function channelOf(method: ApiMethod): string {
  return `${CHANNEL_PREFIX}${method}`;
}

/** What a method's channel answers: the WebSocket's response without its id. */
export type IpcResponse =
  | { result: unknown }
  | { error: { message: string; problems?: ApiProblem[]; reason?: RefusalReason } };

/** Who sent an IPC request, as main.ts reads it from the event. */
export interface IpcSender {
  /** The sending frame's URL; undefined when the frame is gone. */
  frameUrl: string | undefined;
  /** Whether the sending frame is its page's top frame (not an iframe). */
  topFrame: boolean;
  /** Whether the request came from the editor window's own web contents. */
  fromAppWindow: boolean;
}

/** Handles one request on a method's channel; never throws. */
export type IpcDispatch = (
  method: ApiMethod,
  sender: IpcSender,
  params: unknown,
) => Promise<IpcResponse>;

/** The message a refused sender gets. */
export const REFUSED_SENDER_MESSAGE = 'refused: the request did not come from the editor window';

/**
 * Creates the dispatcher over the shared API handlers (main/api/handlers.ts). `log` gets what
 * the page is not told (refused senders, bugs with their stacks), with keys redacted.
 */
export function createIpcDispatcher(
  handlers: Pick<ApiHandlers, 'call' | 'redactor'>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): IpcDispatch {
  const fail = (message: string, problems?: ApiProblem[], reason?: RefusalReason): IpcResponse =>
    handlers.redactor.apply({
      error: {
        message,
        ...(problems && problems.length > 0 ? { problems } : {}),
        ...(reason ? { reason } : {}),
      },
    });

  return async (method, sender, params) => {
    if (!sender.fromAppWindow || !isTrustedSender(sender.frameUrl, sender.topFrame)) {
      log(
        `society desktop: refused ${String(method)} from ${sender.frameUrl ?? 'a frame that is gone'}${sender.topFrame ? '' : ' (a subframe)'}`,
      );
      return fail(REFUSED_SENDER_MESSAGE);
    }
    if (typeof method !== 'string' || !Object.hasOwn(contract, method)) {
      return fail(`unknown method "${String(method)}"`);
    }
    const schemas = contract[method];
    const parsed = schemas.params.safeParse(params ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`)
        .join('; ');
      return fail(`invalid params for ${method}: ${issues}`);
    }
    let result: unknown;
    try {
      result = await handlers.call(method, parsed.data);
    } catch (error) {
      if (error instanceof ApiError) return fail(error.message, error.problems, error.reason);
      // A bug: the log gets the stack, the page one line; neither gets a key.
      const message = error instanceof Error ? error.message : String(error);
      log(
        handlers.redactor.text(
          `society desktop: ${method} failed: ${(error as Error)?.stack ?? message}`,
        ),
      );
      return fail(`${method} failed: ${firstLine(message)}`);
    }
    const checked = schemas.result.safeParse(result);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      log(
        `society desktop: bug: the result of ${method} does not match the contract (${issue?.path.join('.') || 'result'}: ${issue?.message ?? ''})`,
      );
      return fail(`${method} failed: the backend's answer does not match the contract`);
    }
    return { result: toWire(handlers.redactor.apply(checked.data)) };
  };
}

/**
 * A value as the page receives it: through JSON, exactly as the studio's WebSocket sends it, so
 * both transports give the page the same data (no `undefined` members, no class instances, and
 * nothing Electron's structured clone would refuse).
 */
export function toWire<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? null : JSON.parse(text)) as T;
}

/** Run events as sent on RUN_EVENT_CHANNEL: redacted by the handlers, then made wire-safe. */
export function runEventsMessage(batch: RunEventsPush): RunEventsPush {
  return toWire(batch);
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
