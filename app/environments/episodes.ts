/**
 * Every environment a node can drive, by kind: each is a folder (cuisineworld/, textworld/,
 * external/) whose episode.ts meets the contract of ./types.ts, listed here once. A node opens
 * an episode by kind with its settings and drives it through the contract, never naming one.
 * (./registry.ts holds what a dispatcher needs beyond the contract: briefings, demonstrations,
 * a greedy policy; the editor loads that one, so this one stays out of its way.)
 */
import { cuisineWorldEnvironment } from './cuisineworld/episode.ts';
import { externalEnvironment } from './external/episode.ts';
import { textWorldEnvironment } from './textworld/episode.ts';
import type { EnvironmentContext, EnvironmentEpisode, EnvironmentType } from './types.ts';

const environments = new Map<string, EnvironmentType<never>>(
  [cuisineWorldEnvironment, textWorldEnvironment, externalEnvironment].map((e) => [
    e.kind,
    e as EnvironmentType<never>,
  ]),
);

/** The kinds of environment there are, in the order a picker shows them. */
export const ENVIRONMENTS: readonly string[] = [...environments.keys()];

/** The environment of this kind; a clear error for an unknown one. */
export function environmentOf(kind: string): EnvironmentType<unknown> {
  const found = environments.get(kind);
  if (!found) throw new Error(`unknown environment "${kind}" (known: ${ENVIRONMENTS.join(', ')})`);
  return found as EnvironmentType<unknown>;
}

/** Settings checked against the environment's schema, or one line naming the field. */
function checked(type: EnvironmentType<unknown>, settings: unknown): unknown {
  const parsed = type.settings.safeParse(settings);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(
    `${type.title} settings: ${issue.path.map(String).join('.') || 'value'}: ${issue.message}`,
  );
}

/** A new episode of the environment `kind`, its settings checked; start it to play. */
export function openEnvironment(
  kind: string,
  settings: unknown,
  context: EnvironmentContext = {},
): EnvironmentEpisode {
  const type = environmentOf(kind);
  return type.open(checked(type, settings), context);
}

/** The episode of `kind` opened with `settings` that `save` gave, to go on with it. */
export function resumeEnvironment(
  kind: string,
  settings: unknown,
  saved: unknown,
  context: EnvironmentContext = {},
): EnvironmentEpisode {
  const type = environmentOf(kind);
  return type.resume(checked(type, settings), saved, context);
}
