/**
 * How the studio's page proves it holds the per-launch token when it opens the API socket: as a
 * WebSocket subprotocol, `Sec-WebSocket-Protocol: society-studio, society-token.<token>`. A
 * header the page sets itself, never a cookie: browsers scope cookies by host and not by port, so
 * a cookie for 127.0.0.1 would go to every other server on 127.0.0.1 too, and with it the key to
 * the whole API. Shared by the studio server (main/studio/server.ts) and the page
 * (renderer/api.ts); plain strings, so the page may import it.
 */

/** The subprotocol the page asks for and the server answers with (it never echoes the token). */
export const STUDIO_PROTOCOL = 'society-studio';

/** The prefix of the subprotocol that carries the token. */
const TOKEN_PREFIX = 'society-token.';

/** What a token looks like: 32 random bytes in hex, which is also a valid subprotocol. */
const TOKEN = /^[0-9a-f]{64}$/;

/** The subprotocols a page offers to open the API with `token`. */
export function studioProtocols(token: string): string[] {
  return [STUDIO_PROTOCOL, `${TOKEN_PREFIX}${token}`];
}

/**
 * The token offered in a `Sec-WebSocket-Protocol` header, if exactly one well-formed token is
 * offered alongside STUDIO_PROTOCOL; undefined otherwise.
 */
export function tokenFromProtocols(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const offered = header.split(',').map((p) => p.trim());
  if (!offered.includes(STUDIO_PROTOCOL)) return undefined;
  const tokens = offered.filter((p) => p.startsWith(TOKEN_PREFIX));
  if (tokens.length !== 1) return undefined;
  const token = tokens[0]!.slice(TOKEN_PREFIX.length);
  return TOKEN.test(token) ? token : undefined;
}

/** Whether a string has the shape of a studio token (the page checks what it reads from the URL). */
export function isStudioToken(value: string | null | undefined): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}
