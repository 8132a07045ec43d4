import { describe, expect, it } from 'vitest';
import {
  isStudioToken,
  STUDIO_PROTOCOL,
  studioProtocols,
  tokenFromProtocols,
} from './studio-auth.ts';

const TOKEN = '0123456789abcdef'.repeat(4);

describe('the studio token as a WebSocket subprotocol', () => {
  it('reads back the token the page offers, however the header is spaced', () => {
    expect(tokenFromProtocols(studioProtocols(TOKEN).join(', '))).toBe(TOKEN);
    expect(tokenFromProtocols(studioProtocols(TOKEN).reverse().join(','))).toBe(TOKEN);
  });

  it('finds no token without the studio protocol, with two tokens, or a malformed one', () => {
    const [, offered] = studioProtocols(TOKEN);
    for (const header of [
      undefined,
      '',
      STUDIO_PROTOCOL,
      offered,
      `${STUDIO_PROTOCOL}, ${offered}, ${studioProtocols('f'.repeat(64))[1]}`,
      `${STUDIO_PROTOCOL}, ${offered!.toUpperCase()}`,
      `${STUDIO_PROTOCOL}, ${offered}0`,
    ]) {
      expect(tokenFromProtocols(header), String(header)).toBeUndefined();
    }
  });

  it('knows a token by its shape', () => {
    expect(isStudioToken(TOKEN)).toBe(true);
    expect(isStudioToken(`${TOKEN} `)).toBe(false);
    expect(isStudioToken(null)).toBe(false);
  });
});
