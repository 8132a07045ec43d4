/**
 * The command line's side of allowed hosts (app/runtime/origins.ts): the origins a run may
 * contact (the store's settings plus the run's own `--allow-host`), and the refusal, before a
 * run is recorded or anything is sent, of a document whose nodes would contact another (exit 2,
 * one line per origin with the command that allows it).
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import {
  allowCommand,
  type OriginNeed,
  parseOrigin,
  unallowedOrigins,
} from '../runtime/origins.ts';
import { allowedOrigins, type SettingsStore } from '../store/allowed-hosts.ts';
import { EXIT, Exit, UsageError } from './errors.ts';

/** The flag a run command allows one origin for itself with. */
export interface AllowHostFlags {
  allowHost?: string[];
}

/** The origins a run may contact: those allowed in `store`, and the run's `--allow-host`. */
export function runOrigins(store: SettingsStore, flags: AllowHostFlags): string[] {
  const given = (flags.allowHost ?? []).map((text) => {
    try {
      return parseOrigin(text);
    } catch (error) {
      throw new UsageError(`--allow-host ${(error as Error).message}`);
    }
  });
  return [...new Set([...allowedOrigins(store), ...given])];
}

/** Ends the command with exit 2 when `plan`'s nodes would contact an origin not in `allowed`. */
export function refuseUnallowedHosts(plan: GraphPlan, allowed: readonly string[]): void {
  refuseOrigins(unallowedOrigins(plan, allowed));
}

/** Ends the command with exit 2 naming each origin in `refused`, if any. */
export function refuseOrigins(refused: readonly OriginNeed[]): void {
  if (refused.length === 0) return;
  const lines = refused.map(
    (n) =>
      `society: ${n.origin} is not an allowed host (node${n.nodes.length === 1 ? '' : 's'} ${n.nodes.join(', ')} would contact it): ${allowCommand(n.origin)}`,
  );
  lines.push(
    'society: nothing was sent. A document cannot choose the hosts it reaches, this machine included: allow each origin once with society hosts --allow ORIGIN, or for this run only with --allow-host ORIGIN',
  );
  throw new Exit(EXIT.invalid, lines.join('\n'));
}
