import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY, type TokenPlace, takeStudioToken } from './studio-token.ts';

const TOKEN = 'a1b2c3d4'.repeat(8);

/** A tab: its address, its history entry and its sessionStorage. */
function tab(href: string, kept: Record<string, string> = {}) {
  const storage = new Map(Object.entries(kept));
  const place: TokenPlace & { location: { href: string } } = {
    location: { href },
    history: {
      state: { from: 'router' },
      replaceState(_state: unknown, _unused: string, url?: string | URL | null) {
        place.location.href = new URL(String(url), place.location.href).href;
      },
    },
    storage: {
      getItem: (key) => storage.get(key) ?? null,
      setItem: (key, value) => void storage.set(key, value),
    },
  };
  return { place, storage };
}

describe("the page's studio token", () => {
  it('is read once from the printed address, which is then cleaned, and kept for a reload', () => {
    const { place, storage } = tab(`http://127.0.0.1:4173/?token=${TOKEN}&doc=a#top`);
    expect(takeStudioToken(place)).toBe(TOKEN);
    expect(place.location.href).toBe('http://127.0.0.1:4173/?doc=a#top');
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe(TOKEN);
    // The reload: the address has no token any more, the tab's sessionStorage does.
    expect(takeStudioToken(place)).toBe(TOKEN);
    expect(place.location.href).toBe('http://127.0.0.1:4173/?doc=a#top');
  });

  it('takes a new address over a kept token (the studio was restarted)', () => {
    const fresh = 'f0'.repeat(32);
    const { place, storage } = tab(`http://127.0.0.1:4173/?token=${fresh}`, {
      [TOKEN_STORAGE_KEY]: TOKEN,
    });
    expect(takeStudioToken(place)).toBe(fresh);
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe(fresh);
  });

  it('has none in a tab opened without the printed address, and drops a malformed one', () => {
    expect(takeStudioToken(tab('http://127.0.0.1:4173/').place)).toBeUndefined();
    const { place, storage } = tab('http://127.0.0.1:4173/?token=<script>');
    expect(takeStudioToken(place)).toBeUndefined();
    expect(place.location.href).toBe('http://127.0.0.1:4173/');
    expect(storage.size).toBe(0);
  });

  it('still works for this load when storage is blocked', () => {
    const { place } = tab(`http://127.0.0.1:4173/?token=${TOKEN}`);
    place.storage = {
      getItem: () => {
        throw new Error('blocked');
      },
      setItem: () => {
        throw new Error('blocked');
      },
    };
    expect(takeStudioToken(place)).toBe(TOKEN);
    expect(takeStudioToken(place)).toBeUndefined();
  });
});
