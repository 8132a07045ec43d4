import { describe, expect, it } from 'vitest';
import { createMemoryVault, isKeyName } from './vault.ts';

describe('the memory key vault', () => {
  it('tells whether a key is set and its last four characters, never the key', async () => {
    const vault = createMemoryVault();
    expect(vault.status('OPENAI_API_KEY')).toEqual({ name: 'OPENAI_API_KEY', configured: false });
    await vault.set('OPENAI_API_KEY', 'sk-abcdefghijkl1234');
    expect(vault.status('OPENAI_API_KEY')).toEqual({
      name: 'OPENAI_API_KEY',
      configured: true,
      last4: '1234',
    });
    expect(JSON.stringify(vault.status('OPENAI_API_KEY'))).not.toContain('abcdef');
    expect(vault.values()).toEqual({ OPENAI_API_KEY: 'sk-abcdefghijkl1234' });
    await vault.clear('OPENAI_API_KEY');
    expect(vault.values()).toEqual({});
  });

  it('knows only the contract key names', () => {
    expect(isKeyName('HF_TOKEN')).toBe(true);
    expect(isKeyName('PATH')).toBe(false);
    expect(createMemoryVault({ HF_TOKEN: 'hf_abcdefgh' }).status('HF_TOKEN').configured).toBe(true);
  });
});
