/**
 * How each environment's episodes run, by kind: each is a folder (cuisineworld/, textworld/,
 * external/) whose episode.ts meets the contract of ./types.ts. A node opens an episode by kind
 * with its settings and drives it through the contract, never naming one. The kinds and their
 * settings are listed in ./registry.ts, which the editor loads; this file holds the episodes
 * (an outside simulator's clients among them), so the editor never loads it.
 */
import { cuisineWorldEnvironment } from './cuisineworld/episode.ts';
import { externalEnvironment } from './external/episode.ts';
import { checkSettings, ENVIRONMENTS, environmentSettings } from './registry.ts';
import { textWorldEnvironment } from './textworld/episode.ts';
import type { EnvironmentContext, EnvironmentEpisode, EnvironmentType } from './types.ts';

export { ENVIRONMENTS };

const environments = new Map<string, EnvironmentType<never>>(
  [cuisineWorldEnvironment, textWorldEnvironment, externalEnvironment].map((e) => [
    e.kind,
    e as EnvironmentType<never>,
  ]),
);

/** The environment of this kind; a clear error for an unknown one (or one with no episodes). */
export function environmentOf(kind: string): EnvironmentType<unknown> {
  environmentSettings(kind);
  const found = environments.get(kind);
  if (!found) throw new Error(`environment "${kind}" is listed but has no episodes`);
  return found as EnvironmentType<unknown>;
}

/** Settings checked against the environment's schema, or one line naming the field. */
function checked(type: EnvironmentType<unknown>, settings: unknown): unknown {
  const result = checkSettings(type.kind, settings);
  if (result.ok) return result.settings;
  const { path, message } = result.problem;
  throw new Error(`${type.title} settings: ${path.map(String).join('.') || 'value'}: ${message}`);
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
