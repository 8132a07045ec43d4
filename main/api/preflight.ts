/**
 * The studio's side of the run preflight (app/runtime/preflight.ts): a run that would need a key
 * not set (in the environment or in Settings → Keys) is refused before it is recorded or anything
 * is sent, with one message naming every missing key and where to add it; the page shows it as
 * a notice.
 */
import type { GraphPlan } from '../../app/compiler/analyze.ts';
import type { CassetteMode } from '../../app/providers/cassette.ts';
import { preflight, preflightMessage, preflightRefuses } from '../../app/runtime/preflight.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/** Throws the refusal when a run of `plan` this way cannot have every key it may use. */
export function refuseMissingKeys(
  ctx: Pick<ApiContext, 'runEnv' | 'storedOverrides'>,
  plan: GraphPlan,
  how: { simulate: boolean; cassetteMode?: CassetteMode },
): void {
  const check = preflight(plan, {
    env: ctx.runEnv(),
    providerOverrides: ctx.storedOverrides(),
    simulate: how.simulate,
    ...(how.cassetteMode ? { cassetteMode: how.cassetteMode } : {}),
  });
  if (preflightRefuses(check))
    throw new ApiError(
      `cannot run: ${preflightMessage(check, 'studio')}`,
      undefined,
      'missing-keys',
    );
}
