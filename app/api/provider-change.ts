/**
 * Which provider changes point a key somewhere new. A provider profile sends the key held in its
 * key variable to its base URL; whoever can change that URL (or which variable it reads, or how
 * it calls) for a profile that holds a key can have the user's key sent to a server of their own
 * with the next run. The studio's token is enough to call any API method, so such a change is
 * refused from the page unless the backend's transport reaches only the person's own window
 * (main/api/handlers.ts, `keyRedirects`); the desktop app asks the person first. Shared by the
 * backend, which enforces it, and the page, which asks for confirmation where it is allowed.
 */

/** What decides where a profile's key goes. */
export interface ProviderDestination {
  kind: string;
  baseUrl?: string | undefined;
  /** The environment variable whose value is sent as the key; none for local servers. */
  apiKeyEnv?: string | undefined;
}

/**
 * Whether saving `after` in place of `before` (what the profile's name resolves to now: the
 * user's profile of that name, else the built-in one, else nothing) changes where a key goes:
 * either of them uses a key, and the kind, URL or key variable differ. Changing only how many
 * calls run at once is not a change of destination. URLs are compared exactly: a lookalike is a
 * different server.
 */
export function redirectsKey(
  before: ProviderDestination | undefined,
  after: ProviderDestination,
): boolean {
  const usesKey = Boolean(before?.apiKeyEnv) || Boolean(after.apiKeyEnv);
  if (!usesKey) return false;
  if (!before) return true;
  return (
    before.kind !== after.kind ||
    (before.baseUrl ?? '') !== (after.baseUrl ?? '') ||
    (before.apiKeyEnv ?? '') !== (after.apiKeyEnv ?? '')
  );
}

/** The profile `name` resolves to in a provider list: the user's own first, then the built-in. */
export function currentDestination<P extends { name: string } & ProviderDestination>(
  name: string,
  list: { builtin: readonly P[]; custom: readonly P[] },
): P | undefined {
  return list.custom.find((p) => p.name === name) ?? list.builtin.find((p) => p.name === name);
}

/** The command that makes the same change from a terminal. */
export function providerAddCommand(
  name: string,
  after: ProviderDestination & { concurrency?: number | undefined },
): string {
  return [
    `society providers --add ${name}=${after.baseUrl ?? ''}`,
    ...(after.kind !== 'openai-compatible' ? [`--kind ${after.kind}`] : []),
    ...(after.apiKeyEnv ? [`--key-env ${after.apiKeyEnv}`] : []),
    ...(after.concurrency !== undefined ? [`--concurrency ${after.concurrency}`] : []),
  ].join(' ');
}
