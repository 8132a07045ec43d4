/**
 * Provider profiles: the built-in ones, the user's additions and changes, and how a name
 * resolves to a profile. A profile says how to reach a provider and which environment variable
 * holds its key, never the key. Pure data, so listing or checking providers loads no client.
 */
import type { ProviderProfile } from './types.ts';

/** Environment variables, e.g. `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A user's addition to, or change of, a profile (from a society file or CLI config). */
export interface ProfileOverride {
  kind?: ProviderProfile['kind'];
  baseUrl?: string;
  apiKeyEnv?: string;
  concurrency?: number;
}

/**
 * The built-in profiles. Concurrency defaults are conservative for local servers, which
 * usually serve a few requests at a time and queue the rest anyway.
 */
export function builtinProfiles(env: Env = process.env): Record<string, ProviderProfile> {
  return {
    openai: {
      name: 'openai',
      kind: 'openai-compatible',
      baseUrl: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
      concurrency: 8,
    },
    ollama: {
      name: 'ollama',
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      concurrency: 2,
    },
    lmstudio: {
      name: 'lmstudio',
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:1234/v1',
      concurrency: 2,
    },
    vllm: {
      name: 'vllm',
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:8000/v1',
      concurrency: 8,
    },
    llamacpp: {
      name: 'llamacpp',
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:8080/v1',
      concurrency: 2,
    },
    huggingface: {
      name: 'huggingface',
      kind: 'openai-compatible',
      baseUrl: 'https://router.huggingface.co/v1',
      apiKeyEnv: 'HF_TOKEN',
      concurrency: 4,
    },
    // Expert models through Hugging Face Inference Providers (the same token as above).
    'hf-inference': {
      name: 'hf-inference',
      kind: 'huggingface',
      apiKeyEnv: 'HF_TOKEN',
      concurrency: 4,
    },
    simulated: { name: 'simulated', kind: 'simulated', concurrency: 16 },
  };
}

/** Saved provider profiles (`society providers --add`) as overrides of the built-in ones. */
export function profileOverrides(
  profiles: readonly ProviderProfile[],
): Record<string, ProfileOverride> {
  const overrides: Record<string, ProfileOverride> = {};
  for (const p of profiles) {
    overrides[p.name] = {
      kind: p.kind,
      ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
      apiKeyEnv: p.apiKeyEnv ?? '',
      ...(p.concurrency ? { concurrency: p.concurrency } : {}),
    };
  }
  return overrides;
}

/** The names of the built-in profiles, in a stable order. */
export const BUILTIN_PROVIDER_NAMES: readonly string[] = Object.freeze(
  Object.keys(builtinProfiles({})),
);

export interface ResolveProfileOptions {
  env?: Env;
  overrides?: Readonly<Record<string, ProfileOverride>>;
}

/** Every profile known with these overrides applied: built-ins first, then additions. */
export function listProviderProfiles(options: ResolveProfileOptions = {}): ProviderProfile[] {
  const names = new Set([...BUILTIN_PROVIDER_NAMES, ...Object.keys(options.overrides ?? {})]);
  return [...names].map((name) => resolveProviderProfile(name, options));
}

/**
 * The profile called `name`: a built-in one with any override merged over it, or a profile
 * defined entirely by an override (which then needs a baseUrl unless it is simulated).
 * Throws a clear error for an unknown name.
 */
export function resolveProviderProfile(
  name: string,
  options: ResolveProfileOptions = {},
): ProviderProfile {
  const builtin = builtinProfiles(options.env ?? process.env)[name];
  const override = Object.hasOwn(options.overrides ?? {}, name)
    ? options.overrides?.[name]
    : undefined;
  if (!builtin && !override) {
    const known = [...BUILTIN_PROVIDER_NAMES, ...Object.keys(options.overrides ?? {})].join(', ');
    throw new Error(`unknown provider "${name}"; known providers: ${known}`);
  }
  const profile: ProviderProfile = {
    ...(builtin ?? { name, kind: 'openai-compatible' }),
    ...definedOnly(override ?? {}),
    name,
  };
  if (profile.kind === 'huggingface' && profile.baseUrl && !URL.canParse(profile.baseUrl)) {
    throw new Error(`provider "${name}" has an invalid endpoint URL: ${profile.baseUrl}`);
  }
  if (profile.kind === 'openai-compatible') {
    if (!profile.baseUrl) {
      throw new Error(`provider "${name}" needs a baseUrl (e.g. http://localhost:8000/v1)`);
    }
    if (!URL.canParse(profile.baseUrl)) {
      throw new Error(`provider "${name}" has an invalid baseUrl: ${profile.baseUrl}`);
    }
  }
  return profile;
}

function definedOnly(override: ProfileOverride): ProfileOverride {
  return Object.fromEntries(Object.entries(override).filter(([, v]) => v !== undefined));
}

/** The message for a profile whose key variable is unset. */
export function missingKeyMessage(apiKeyEnv: string): string {
  return `${apiKeyEnv} is not set: export it, or run with --simulate or --replay CASSETTE`;
}
