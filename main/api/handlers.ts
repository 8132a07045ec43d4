/**
 * The backend side of the editor's API (app/api/contract.ts): one handler per method, shared by
 * the loopback studio server and Electron IPC. Every request's params are parsed with the
 * contract's schema before a handler sees them, and every result is checked against its schema
 * (a result that does not fit is a bug, and throws). Nothing a handler returns, and no run event
 * it forwards, holds a key: everything leaving here is redacted with the keys the environment and
 * the vault hold (S12, S13).
 *
 * The handlers live by concern: templates.ts, documents.ts (document checks and workspace
 * files), runs.ts (starting and steering a run), history.ts (stored runs and forks), evals.ts
 * (stored evals), ratings.ts (people's ratings of eval items), keys.ts, settings.ts and spending.ts (what a live run may spend); live-runs.ts records and broadcasts the runs going. This module composes them.
 */
import type { RunEventPush } from '../../app/api/contract.ts';
import { type ApiMethod, contract } from '../../app/api/contract.ts';
import type { Redactor } from '../../app/providers/secrets.ts';
import { type ApiHandlersOptions, type ApiImplementation, createApiContext } from './context.ts';
import { creditMethods } from './credit.ts';
import { documentMethods } from './documents.ts';
import { ApiError } from './errors.ts';
import { evalMethods } from './evals.ts';
import { historyMethods } from './history.ts';
import { hostsMethods } from './hosts.ts';
import { interviewMethods } from './interviews.ts';
import { keyMethods } from './keys.ts';
import { createLiveRuns } from './live-runs.ts';
import { mcpMethods } from './mcp.ts';
import { ratingMethods } from './ratings.ts';
import { runMethods } from './runs.ts';
import { settingsMethods } from './settings.ts';
import { spendingMethods } from './spending.ts';
import { DEFAULT_TEMPLATES_DIR, templateMethods, templateShelf } from './templates.ts';

export type { ApiHandlersOptions, ApiImplementation } from './context.ts';
export { ApiError } from './errors.ts';
export { EXAMPLE_IMAGE } from './run-inputs.ts';
export { DEFAULT_TEMPLATES_DIR } from './templates.ts';

/** The API, ready to serve. */
export interface ApiHandlers {
  /**
   * Calls a method with unchecked params from the page: parses them, runs the handler, checks and
   * redacts the result. Throws an ApiError for a refused request (with `problems` for a document
   * that does not compile); any other error is a bug.
   */
  call(method: string, params: unknown): Promise<unknown>;
  /** The handlers themselves, for callers that already hold typed params. */
  readonly methods: ApiImplementation;
  /** Tells `listener` every event of every run, redacted. Returns the unsubscribe function. */
  onRunEvent(listener: (push: RunEventPush) => void): () => void;
  /** The key values to scrub from anything leaving the process, longest first. */
  secrets(): string[];
  /** What scrubs them: the store's redactor, for everything a transport sends or logs. */
  readonly redactor: Redactor;
  /** Ids of the runs still going. */
  running(): string[];
  /** Cancels the runs still going and waits until they are recorded. */
  close(): Promise<void>;
}

/** Creates the API's handlers over a store, a workspace folder, the templates and a key vault. */
export function createApiHandlers(options: ApiHandlersOptions): ApiHandlers {
  // Runs a crashed studio or CLI left "running" are interrupted; ours are not started yet.
  options.store.markInterrupted();
  const ctx = createApiContext(options, options.templatesDir ?? DEFAULT_TEMPLATES_DIR);
  ctx.secretsChanged();
  const { redactor } = ctx;
  const live = createLiveRuns(ctx);
  const templates = templateShelf(ctx.templatesDir);

  const methods: ApiImplementation = {
    ...templateMethods(ctx, templates),
    ...documentMethods(ctx),
    ...runMethods(ctx, live, templates),
    ...historyMethods(ctx, live),
    ...interviewMethods(ctx, live),
    ...creditMethods(ctx, live),
    ...evalMethods(ctx),
    ...ratingMethods(ctx),
    ...keyMethods(ctx),
    ...settingsMethods(ctx),
    ...spendingMethods(ctx),
    ...hostsMethods(ctx),
    ...mcpMethods(ctx),
  };

  return {
    methods,
    async call(method, params) {
      if (!Object.hasOwn(contract, method)) throw new ApiError(`unknown method "${method}"`);
      const m = method as ApiMethod;
      const parsed = contract[m].params.safeParse(params ?? {});
      if (!parsed.success) {
        const issues = parsed.error.issues
          .slice(0, 5)
          .map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`)
          .join('; ');
        throw new ApiError(`invalid params for ${method}: ${issues}`);
      }
      const handler = methods[m] as (params: unknown) => Promise<unknown>;
      const result = await handler(parsed.data);
      const checked = contract[m].result.safeParse(result);
      if (!checked.success) {
        throw new Error(
          `bug: the result of ${method} does not match the contract: ${checked.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.')}: ${i.message}`)
            .join('; ')}`,
        );
      }
      return redactor.apply(checked.data);
    },
    onRunEvent: live.onRunEvent,
    secrets: ctx.secrets,
    redactor,
    running: live.ids,
    close: live.close,
  };
}
