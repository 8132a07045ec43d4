/**
 * The hosts a document may contact (app/runtime/origins.ts) in the studio: Settings → Allowed
 * hosts (`settings.hosts.*`, the same store setting `society hosts` keeps), the origins a run
 * would contact (`run.hosts`, `runs.hosts`, for the prompt), and the refusal, before anything is
 * recorded or sent, of a run whose nodes would contact an origin not allowed (reason `hosts`).
 */
import type { GraphPlan } from '../../app/compiler/analyze.ts';
import { compileGraph } from '../../app/compiler/index.ts';
import { originsMessage, parseOrigin, plannedOrigins } from '../../app/runtime/origins.ts';
import { allowedOrigins, allowOrigin, revokeOrigin } from '../../app/store/allowed-hosts.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';
import { storedRun } from './stored-run.ts';

/** Throws the refusal (reason `hosts`) when `plan`'s nodes would contact an origin not allowed. */
export function refuseUnallowedHosts(ctx: Pick<ApiContext, 'store'>, plan: GraphPlan): void {
  const refused = plannedOrigins(plan, allowedOrigins(ctx.store)).filter((n) => !n.allowed);
  if (refused.length)
    throw new ApiError(`cannot run: ${originsMessage(refused, 'studio')}`, undefined, 'hosts');
}

/** The origins the studio's runs may contact: the user's allowed hosts. */
export function studioOrigins(ctx: Pick<ApiContext, 'store'>): string[] {
  return allowedOrigins(ctx.store);
}

function origin(text: string): string {
  try {
    return parseOrigin(text);
  } catch (error) {
    throw new ApiError((error as Error).message);
  }
}

/** The `settings.hosts.*`, `run.hosts` and `runs.hosts` methods. */
export function hostsMethods(
  ctx: ApiContext,
): ApiMethods<
  | 'settings.hosts.list'
  | 'settings.hosts.allow'
  | 'settings.hosts.revoke'
  | 'run.hosts'
  | 'runs.hosts'
> {
  const { store } = ctx;
  const needs = async (document: unknown, params: Record<string, unknown> = {}) => {
    const compiled = await compileGraph(document, await ctx.nodeRegistry(), { params });
    if (!compiled.ok) throw new ApiError('the document has problems', compiled.problems);
    return plannedOrigins(compiled.plan, allowedOrigins(store));
  };
  return {
    async 'settings.hosts.list'() {
      return { origins: allowedOrigins(store) };
    },
    async 'settings.hosts.allow'(params) {
      return { origins: allowOrigin(store, origin(params.origin)) };
    },
    async 'settings.hosts.revoke'(params) {
      return { origins: revokeOrigin(store, origin(params.origin)).origins };
    },
    async 'run.hosts'(params) {
      return needs(params.document, params.params);
    },
    async 'runs.hosts'({ runId }) {
      return needs(storedRun(store, runId).documentText);
    },
  };
}
