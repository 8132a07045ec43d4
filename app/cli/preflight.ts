/**
 * The command line's side of the preflight (app/runtime/preflight.ts): refusing a run whose keys
 * are not all set before it is recorded or anything is sent (exit 2, one line per missing key),
 * and the keys `--estimate` lists.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import type { CassetteMode } from '../providers/cassette.ts';
import {
  missingKeyNeeds,
  type Preflight,
  type PreflightOptions,
  preflight,
  someNames,
} from '../runtime/preflight.ts';
import { EXIT, Exit } from './errors.ts';

/**
 * Ends the command with exit 2 when a run of `plan` with these options would need a key that is
 * not set, or a provider that cannot be used: one line for each, then where to set keys.
 */
export function refuseMissingKeys(
  plan: GraphPlan,
  options: PreflightOptions,
  alternatives?: string,
): void {
  const lines = refusalLines(preflight(plan, options), alternatives);
  if (lines.length) throw new Exit(EXIT.invalid, lines.join('\n'));
}

/** The cassette mode a command's `--replay`, `--replay-then-live` or `--record` asks for. */
export function cassetteModeOf(flags: {
  replay?: string | undefined;
  replayThenLive?: string | undefined;
  record?: string | undefined;
}): { cassetteMode?: CassetteMode } {
  if (flags.replay) return { cassetteMode: 'replay' };
  if (flags.replayThenLive) return { cassetteMode: 'replay-then-live' };
  if (flags.record) return { cassetteMode: 'record' };
  return {};
}

/** What a refusal offers besides setting the key, in the flags of `run` and `eval`. */
const RUN_ALTERNATIVES =
  'point the profiles elsewhere with --model, or run with --simulate or --replay CASSETTE';

/**
 * The lines of a refusal, or none when the run may start; `alternatives` is what the command's
 * own flags offer besides setting the key.
 */
export function refusalLines(check: Preflight, alternatives = RUN_ALTERNATIVES): string[] {
  const lines = [
    ...check.missing.map((m) => `society: ${m.apiKeyEnv} is not set: ${missingKeyNeeds(m)}`),
    ...check.unusable.map((p) => `society: ${p.error} (for ${someNames(p.nodes)})`),
  ];
  if (check.missing.length === 0) return lines;
  const first = check.missing[0]!.apiKeyEnv;
  return [
    ...lines,
    `society: nothing was sent. Set ${check.missing.length === 1 ? 'it' : 'each'} (export ${first}=…, or a provider of your own: society providers --add NAME=URL --key-env VAR), ${alternatives}`,
  ];
}

/** One provider in `--estimate --json`: never a key, only whether it is set. */
export interface ProviderKeyJson {
  provider: string;
  kind: string | null;
  /** The variable its key is read from; null when it needs none. */
  keyEnv: string | null;
  /** Whether that variable is set (true when none is needed). */
  set: boolean;
  profiles: string[];
  nodes: string[];
  error?: string;
}

/** The providers a run can reach, as `--estimate --json` lists them. */
export function providersJson(check: Preflight): ProviderKeyJson[] {
  return check.providers.map((p) => ({
    provider: p.name,
    kind: p.kind ?? null,
    keyEnv: p.apiKeyEnv ?? null,
    set: p.set,
    profiles: p.profiles,
    nodes: p.nodes,
    ...(p.error ? { error: p.error } : {}),
  }));
}

/** The providers and keys as `--estimate` prints them, a line each, aligned. */
export function providersText(check: Preflight): string {
  if (check.providers.length === 0) return 'providers: none (no node calls a provider)';
  const rows = check.providers.map((p) => [
    p.name,
    p.error ? 'unusable' : (p.apiKeyEnv ?? '-'),
    p.error
      ? p.error
      : p.apiKeyEnv
        ? p.set
          ? 'set'
          : p.optional
            ? 'not set (its endpoint may need none)'
            : 'not set'
        : 'no key needed',
    someNames(p.nodes),
  ]);
  const table = [['provider', 'key', 'status', 'nodes'], ...rows];
  const widths = [0, 1, 2].map((i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) =>
    r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  '),
  );
  return ['providers and keys a live run needs:', ...lines.map((l) => `  ${l}`)].join('\n');
}
