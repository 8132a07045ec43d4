import { describe, expect, it } from 'vitest';
import { currentDestination, providerAddCommand, redirectsKey } from './provider-change.ts';

const OPENAI = {
  name: 'openai',
  kind: 'openai-compatible',
  baseUrl: 'https://api.openai.com/v1',
  apiKeyEnv: 'OPENAI_API_KEY',
};
const OLLAMA = { name: 'ollama', kind: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' };

describe('which provider changes point a key somewhere new', () => {
  it('any change of URL, key variable or kind of a profile that uses a key', () => {
    expect(redirectsKey(OPENAI, { ...OPENAI, baseUrl: 'https://api.openai.com.evil/v1' })).toBe(
      true,
    );
    // Even a URL that differs only in a trailing slash: compared exactly, never guessed.
    expect(redirectsKey(OPENAI, { ...OPENAI, baseUrl: 'https://api.openai.com/v1/' })).toBe(true);
    expect(redirectsKey(OPENAI, { ...OPENAI, apiKeyEnv: 'HF_TOKEN' })).toBe(true);
    expect(redirectsKey(OPENAI, { ...OPENAI, kind: 'huggingface' })).toBe(true);
    // Dropping the key but keeping the name sends openai's calls elsewhere.
    expect(redirectsKey(OPENAI, { kind: 'openai-compatible', baseUrl: 'http://x/v1' })).toBe(true);
  });

  it('a new profile with a key, or a key given to a keyless one', () => {
    expect(redirectsKey(undefined, { ...OLLAMA, apiKeyEnv: 'OPENAI_API_KEY' })).toBe(true);
    expect(redirectsKey(OLLAMA, { ...OLLAMA, apiKeyEnv: 'OPENAI_API_KEY' })).toBe(true);
  });

  it('not what leaves every key where it goes', () => {
    expect(redirectsKey(OPENAI, { ...OPENAI })).toBe(false);
    expect(redirectsKey(undefined, { kind: 'openai-compatible', baseUrl: 'http://lab/v1' })).toBe(
      false,
    );
    expect(redirectsKey(OLLAMA, { ...OLLAMA, baseUrl: 'http://localhost:11435/v1' })).toBe(false);
  });

  it('resolves a name to the user’s profile first, then the built-in one', () => {
    const mine = { ...OPENAI, baseUrl: 'https://proxy/v1' };
    expect(currentDestination('openai', { builtin: [OPENAI], custom: [mine] })).toBe(mine);
    expect(currentDestination('openai', { builtin: [OPENAI], custom: [] })).toBe(OPENAI);
    expect(currentDestination('lab', { builtin: [OPENAI], custom: [] })).toBeUndefined();
  });

  it('gives the terminal command that makes the same change', () => {
    expect(providerAddCommand('lab', { kind: 'openai-compatible', baseUrl: 'http://lab/v1' })).toBe(
      'society providers --add lab=http://lab/v1',
    );
    expect(
      providerAddCommand('lab', {
        kind: 'openai-compatible',
        baseUrl: 'http://lab/v1',
        apiKeyEnv: 'LAB_TOKEN',
        concurrency: 3,
      }),
    ).toBe('society providers --add lab=http://lab/v1 --key-env LAB_TOKEN --concurrency 3');
  });
});
