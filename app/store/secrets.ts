/**
 * Guards that keep keys out of the database (checklist S12, S13). The store holds provider
 * profiles and settings, and both are tempting places to paste a key; it refuses anything that
 * looks like one, so a key can only ever live in the environment or the OS keychain.
 */
import { z } from 'zod';
import type { ProviderProfile } from '../providers/types.ts';

/** Field names (compared lower-case, without `_` or `-`) that hold a secret. */
const SECRET_NAMES = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'authorization',
  'bearer',
  'credential',
  'credentials',
]);
/** Suffixes that make any field name secret: `openaiApiKey`, `hfToken`, `clientSecret`. */
const SECRET_SUFFIXES = ['apikey', 'secretkey', 'privatekey', 'accesskey', 'token', 'secret'];

/** True for a field name that could hold a secret. `apiKeyEnv` (a variable's name) is fine. */
export function isSecretFieldName(name: string): boolean {
  const folded = name.toLowerCase().replace(/[-_\s]/g, '');
  return SECRET_NAMES.has(folded) || SECRET_SUFFIXES.some((suffix) => folded.endsWith(suffix));
}

/** Prefixes of real key formats (OpenAI, Anthropic, Hugging Face, Groq, xAI, Google, GitHub). */
const KEY_SHAPED =
  /\b(?:sk-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{8,}|gsk_|xai-|AIza[0-9A-Za-z_-]{8,}|gh[pousr]_)/;

/** True for a string that looks like a key itself. */
export function looksLikeKey(text: string): boolean {
  return KEY_SHAPED.test(text);
}

/**
 * The JSON path (`nodes[2].data.prompt`) of the first string in `value` holding one of `secrets`
 * (key values the process knows) or something shaped like a key; undefined when there is none.
 * The editor's Export, `society export`, `society validate` and a queued eval all ask it, so a
 * document is judged the same everywhere. The path never quotes the value.
 */
export function keyShapedPath(
  value: unknown,
  secrets: readonly string[] = [],
  at = '',
): string | undefined {
  if (typeof value === 'string') {
    return looksLikeKey(value) || secrets.some((s) => value.includes(s))
      ? at || '(document)'
      : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = keyShapedPath(value[i], secrets, `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [name, field] of Object.entries(value)) {
      const found = keyShapedPath(field, secrets, at ? `${at}.${name}` : name);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The path of the first field in `value` whose name could hold a secret, or whose string
 * value looks like a key; undefined when there is none.
 */
export function findSecret(value: unknown, at = '(root)'): string | undefined {
  if (typeof value === 'string') return looksLikeKey(value) ? at : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findSecret(value[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [name, field] of Object.entries(value)) {
      const path = at === '(root)' ? name : `${at}.${name}`;
      if (isSecretFieldName(name)) return path;
      const found = findSecret(field, path);
      if (found) return found;
    }
  }
  return undefined;
}

/** A key was offered to the store. The message names the field, never its value. */
export class SecretRefusedError extends Error {
  readonly field: string;
  constructor(what: string, field: string, hint: string) {
    super(`${what}: refusing to store "${field}", which could hold a secret. ${hint}`);
    this.name = 'SecretRefusedError';
    this.field = field;
  }
}

const PROFILE_HINT =
  'A provider profile names the environment variable that holds the key (apiKeyEnv, e.g. OPENAI_API_KEY), never the key.';

const baseUrl = z.string().superRefine((text, ctx) => {
  if (!URL.canParse(text)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be an absolute URL, e.g. http://localhost:11434/v1',
    });
    return;
  }
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
  }
  if (url.username !== '' || url.password !== '') {
    ctx.addIssue({
      code: 'custom',
      message:
        'must not contain a user name or password; put the key in the variable apiKeyEnv names',
    });
  }
  if ([...url.searchParams.keys()].some(isSecretFieldName)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must not carry a key in its query string; put it in the variable apiKeyEnv names',
    });
  }
});

/**
 * A stored provider profile. Strict: an unknown field is an error, not dropped, so a typo
 * never silently loses a setting. The environment variable's name must look like one (upper
 * case, digits, `_`), which also refuses a key pasted into the wrong field (`sk-…`, `hf_…`).
 */
export const StoredProviderProfileSchema = z.strictObject({
  name: z
    .string()
    .regex(
      /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/,
      'must be 1 to 64 letters, digits, _, . or -, not starting with . or -',
    ),
  kind: z.enum(['openai-compatible', 'huggingface', 'simulated']),
  baseUrl: baseUrl.optional(),
  apiKeyEnv: z
    .string()
    .regex(
      /^[A-Z_][A-Z0-9_]{0,63}$/,
      'must name an environment variable (upper-case letters, digits and _, e.g. OPENAI_API_KEY), not hold the key',
    )
    .optional(),
  concurrency: z.number().int().min(1).max(1024).optional(),
}) satisfies z.ZodType<ProviderProfile>;

/**
 * Validates a provider profile for storage. Secret-looking fields (`key`, `apiKey`, `api_key`,
 * `token`, `secret`, `password`, …) and key-shaped values are refused with SecretRefusedError
 * before any other check, so the error says what is wrong instead of "unknown field".
 */
export function parseProviderProfile(input: unknown): ProviderProfile {
  const name =
    input && typeof input === 'object' && typeof (input as { name?: unknown }).name === 'string'
      ? `provider profile "${(input as { name: string }).name}"`
      : 'provider profile';
  const secret = findSecret(input);
  if (secret) throw new SecretRefusedError(name, secret, PROFILE_HINT);
  const parsed = StoredProviderProfileSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new Error(`${name} is not valid: ${issues}`, { cause: parsed.error });
  }
  const profile: ProviderProfile = { name: parsed.data.name, kind: parsed.data.kind };
  if (parsed.data.baseUrl !== undefined) profile.baseUrl = parsed.data.baseUrl;
  if (parsed.data.apiKeyEnv !== undefined) profile.apiKeyEnv = parsed.data.apiKeyEnv;
  if (parsed.data.concurrency !== undefined) profile.concurrency = parsed.data.concurrency;
  return profile;
}
