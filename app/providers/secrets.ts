/**
 * Keeping keys out of everything written: events, the run store, cassettes, exports and logs.
 * Keys are read from the environment only when a call is made; anything the process writes
 * passes through `redact` with the key values the environment holds.
 */

/** Environment variables whose values are keys, whatever profile uses them. */
const KEY_VARIABLES = ['OPENAI_API_KEY', 'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'ANTHROPIC_API_KEY'];

/** The key values present in the environment (and any further variables named), longest first. */
export function secretsIn(env: NodeJS.ProcessEnv, extraVariables: string[] = []): string[] {
  const values = [...KEY_VARIABLES, ...extraVariables]
    .map((name) => env[name]?.trim())
    .filter((v): v is string => typeof v === 'string' && v.length >= 8);
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of a secret in any string inside `value`. */
export function redact<T>(value: T, secrets: string[]): T {
  if (secrets.length === 0) return value;
  const text = JSON.stringify(value);
  if (text === undefined || !secrets.some((s) => text.includes(s))) return value;
  let clean = text;
  for (const secret of secrets) clean = clean.split(secret).join('[redacted]');
  return JSON.parse(clean) as T;
}
