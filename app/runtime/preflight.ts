/**
 * The preflight of a run: every provider profile any node of the plan can reach, and whether the
 * key each one reads is set, found before anything is sent. A run that would find a missing key
 * only when its node runs (a painter after 259 paid calls) is refused up front instead, naming
 * every missing key at once.
 *
 * What a node reaches is its spec's to say, through the two hooks the export manifest and the
 * gallery already read: `models` (model profile names, which the document's `models` map to
 * providers; templated names are expanded over every copy) and `providers` (profiles the node
 * reaches itself: an expert's, a metric's, the experts of a plan made at run time). This module
 * names no node type.
 */
import { type GraphPlan, nodeModelProfiles, type PlannedNode } from '../compiler/analyze.ts';
import type { CassetteMode } from '../providers/cassette.ts';
import { type Env, type ProfileOverride, resolveProviderProfile } from '../providers/profiles.ts';
import type { ProviderProfile } from '../providers/types.ts';

/** How the run will answer its calls, and where its keys come from. */
export interface PreflightOptions {
  /** Where keys are read (default `process.env`; the studio adds the keys kept in Settings). */
  env?: Env;
  providerOverrides?: Readonly<Record<string, ProfileOverride>>;
  /** Every call goes to the simulator: no key is needed. */
  simulate?: boolean;
  /** A strict replay never calls a provider; replay-then-live and record may. */
  cassetteMode?: CassetteMode;
  /** Chat providers are injected by the caller (tests, a vault): their keys are its business. */
  chatInjected?: boolean;
  /** Expert providers are injected by the caller. */
  expertInjected?: boolean;
}

/** A provider profile the run can reach. */
export interface ProviderNeed {
  /** The provider profile's name (`openai`, `hf-inference`, one of the user's). */
  name: string;
  kind?: ProviderProfile['kind'];
  /** The variable its key is read from; absent for a provider that needs none. */
  apiKeyEnv?: string;
  /** True when the key is set or none is needed. Never the key itself. */
  set: boolean;
  /** The model profiles that reach it (empty when nodes reach it themselves). */
  profiles: string[];
  /** The nodes that can call it, in document order. */
  nodes: string[];
  /** Why the profile cannot be used at all (an unknown provider, a bad URL). */
  error?: string;
}

/** A key the run needs and does not have, with everything that needs it. */
export interface MissingKey {
  apiKeyEnv: string;
  providers: string[];
  profiles: string[];
  nodes: string[];
}

export interface Preflight {
  /** False for a simulated run or a strict replay: it needs no key. */
  live: boolean;
  providers: ProviderNeed[];
  /** Keys not set that a live run needs; empty when `live` is false. */
  missing: MissingKey[];
  /** Providers that cannot be used, when `live`. */
  unusable: ProviderNeed[];
}

/**
 * Every provider the plan's nodes can reach, with whether its key is set, and (for a run that
 * can call providers) what is missing. Pure: reads only `options.env`.
 */
export function preflight(plan: GraphPlan, options: PreflightOptions = {}): Preflight {
  const env = options.env ?? process.env;
  const needs = new Map<string, ProviderNeed & { chat: boolean; expert: boolean }>();
  const need = (provider: string, node: PlannedNode, via: { profile?: string }) => {
    let entry = needs.get(provider);
    if (!entry) {
      entry = { ...describe(provider, env, options), chat: false, expert: false };
      needs.set(provider, entry);
    }
    if (!entry.nodes.includes(node.id)) entry.nodes.push(node.id);
    if (via.profile !== undefined) {
      entry.chat = true;
      if (!entry.profiles.includes(via.profile)) entry.profiles.push(via.profile);
    } else entry.expert = true;
  };

  const models = plan.doc.models ?? {};
  for (const node of [...plan.nodes.values()].sort((a, b) => a.index - b.index)) {
    // A node that makes no call this time (a disabled filter) needs no key.
    const calls = node.spec.callsPerRun?.(node.data);
    if (calls !== undefined && calls <= 0) continue;
    for (const profile of nodeModelProfiles(plan, node)) {
      const model = Object.hasOwn(models, profile) ? models[profile] : undefined;
      if (model) need(model.provider, node, { profile });
    }
    let reached: string[] = [];
    try {
      reached = node.spec.providers?.(node.data) ?? [];
    } catch {
      // Data the hook cannot read: the compiler has said so.
    }
    for (const provider of reached) need(provider, node, {});
  }

  const live = !options.simulate && options.cassetteMode !== 'replay';
  const providers = [...needs.values()].map(({ chat: _c, expert: _e, ...rest }) => rest);
  if (!live) return { live, providers, missing: [], unusable: [] };
  // Injected providers answer for themselves; the rest must be reachable now.
  const checked = [...needs.values()].filter(
    (n) => (n.chat && !options.chatInjected) || (n.expert && !options.expertInjected),
  );
  const byKey = new Map<string, MissingKey>();
  for (const n of checked) {
    if (n.set || n.error || !n.apiKeyEnv) continue;
    let missing = byKey.get(n.apiKeyEnv);
    if (!missing) {
      missing = { apiKeyEnv: n.apiKeyEnv, providers: [], profiles: [], nodes: [] };
      byKey.set(n.apiKeyEnv, missing);
    }
    missing.providers.push(n.name);
    for (const p of n.profiles) if (!missing.profiles.includes(p)) missing.profiles.push(p);
    for (const id of n.nodes) if (!missing.nodes.includes(id)) missing.nodes.push(id);
  }
  return {
    live,
    providers,
    missing: [...byKey.values()],
    unusable: checked
      .filter((p) => p.error !== undefined)
      .map(({ chat: _c, expert: _e, ...rest }) => rest),
  };
}

function describe(provider: string, env: Env, options: PreflightOptions): ProviderNeed {
  const base = { name: provider, profiles: [], nodes: [] };
  let profile: ProviderProfile;
  try {
    profile = resolveProviderProfile(provider, {
      env,
      ...(options.providerOverrides ? { overrides: options.providerOverrides } : {}),
    });
  } catch (error) {
    return { ...base, set: false, error: (error as Error).message };
  }
  const apiKeyEnv = profile.apiKeyEnv || undefined;
  return {
    ...base,
    kind: profile.kind,
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    set: apiKeyEnv === undefined || Boolean(env[apiKeyEnv]?.trim()),
  };
}

/** Where a person sets a key: the command line's words, or the studio's. */
export type KeyAdvice = 'cli' | 'studio';

/** `a, b, c and 4 more`: a node list short enough for one line. */
export function someNames(names: readonly string[], most = 4): string {
  if (names.length <= most) return names.join(', ');
  return `${names.slice(0, most).join(', ')} and ${names.length - most} more`;
}

/**
 * What needs one missing key, e.g.
 * `provider "openai" with model profiles artist, critic, for nodes questioner, critic`.
 */
export function missingKeyNeeds(missing: MissingKey): string {
  const providers = missing.providers.map((p) => `"${p}"`).join(', ');
  const profiles = missing.profiles.length
    ? ` with model profile${missing.profiles.length === 1 ? '' : 's'} ${someNames(missing.profiles)}`
    : '';
  const nodes = `node${missing.nodes.length === 1 ? '' : 's'} ${someNames(missing.nodes)}`;
  return `provider${missing.providers.length === 1 ? '' : 's'} ${providers}${profiles}, for ${nodes}`;
}

/**
 * The refusal in one line (the engine's, and the studio's notice), naming every missing key and
 * unusable provider, and where to set a key.
 */
export function preflightMessage(check: Preflight, advice: KeyAdvice): string {
  const keys = check.missing.map((m) => `${m.apiKeyEnv} (${missingKeyNeeds(m)})`);
  const unusable = check.unusable.map((p) => `${p.error} (for ${someNames(p.nodes)})`);
  const parts: string[] = [];
  if (keys.length)
    parts.push(
      `${keys.length === 1 ? 'a key is' : `${keys.length} keys are`} not set: ${keys.join('; ')}`,
    );
  parts.push(...unusable);
  const where =
    advice === 'studio'
      ? 'add it in Settings → Keys, or use Run simulated (made-up answers, no key)'
      : 'export it, or run with --simulate or --replay CASSETTE';
  return `nothing was sent: ${parts.join('; ')}${keys.length ? `; ${where}` : ''}`;
}

/** True when a live run cannot start: a key is missing or a provider cannot be used. */
export function preflightRefuses(check: Preflight): boolean {
  return check.missing.length > 0 || check.unusable.length > 0;
}
