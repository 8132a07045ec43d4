/**
 * What a simulator URL may look like. Pure, so a node's spec (which the editor loads) checks a
 * document's URL as it is typed; which hosts a run may reach is hosts.ts's, at run time.
 */

/** The URL schemes a simulator is reached by: HTTP(S) and WebSocket. */
export const SIMULATOR_SCHEMES = ['http:', 'https:', 'ws:', 'wss:'] as const;

/** Why a simulator URL is not usable as written, or undefined when it is. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL (e.g. http://127.0.0.1:5123 or ws://127.0.0.1:5123)`;
  }
  if (!(SIMULATOR_SCHEMES as readonly string[]).includes(parsed.protocol)) {
    return `a simulator is reached over http, https, ws or wss, not ${parsed.protocol.slice(0, -1)}`;
  }
  if (parsed.username || parsed.password) {
    return 'a simulator URL carries no user name or password (documents hold no secrets)';
  }
  return undefined;
}
