import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type NormalizedRequest, requestKey } from '../providers/cassette.ts';
import { SecretRefusedError } from './secrets.ts';
import { dir, everyKind, newRun, numbered, store, withTempStores } from './store.test-helper.ts';
import { openRunStore } from './store.ts';

withTempStores();

describe('keys never reach the database', () => {
  it('refuses provider profiles with a field that could hold a secret', () => {
    const s = store();
    const base = { name: 'mine', kind: 'openai-compatible', baseUrl: 'https://api.example/v1' };
    for (const field of ['apiKey', 'api_key', 'key', 'token', 'secret', 'password', 'hfToken']) {
      expect(() => s.saveProviderProfile({ ...base, [field]: 'x' })).toThrow(SecretRefusedError);
    }
    expect(() => s.saveProviderProfile({ ...base, apiKey: 'sk-abc' })).toThrow(
      /refusing to store "apiKey".*names the environment variable/,
    );
    // Key-shaped test values, put together here so no key-like literal sits in the source.
    const openaiShaped = ['sk', 'proj', 'FAKEtestVALUE'].join('-');
    const hfShaped = ['hf', 'FAKEtestVALUEnotAtoken'].join('_');
    expect(() => s.saveProviderProfile({ ...base, apiKeyEnv: openaiShaped })).toThrow(
      SecretRefusedError,
    );
    expect(() => s.saveProviderProfile({ ...base, apiKeyEnv: hfShaped })).toThrow();
    expect(() =>
      s.saveProviderProfile({ ...base, baseUrl: 'https://u:pw@api.example/v1' }),
    ).toThrow(/user name or password/);
    expect(() =>
      s.saveProviderProfile({ ...base, baseUrl: 'https://api.example/v1?api_key=1' }),
    ).toThrow(/query string/);
    expect(() => s.saveProviderProfile({ ...base, extra: 1 })).toThrow(/not valid/);
    expect(s.listProviderProfiles()).toEqual([]);

    const saved = s.saveProviderProfile({ ...base, apiKeyEnv: 'MY_API_KEY', concurrency: 3 });
    expect(s.getProviderProfile('mine')).toEqual(saved);
    expect(s.saveProviderProfile({ name: 'mine', kind: 'simulated' })).toEqual({
      name: 'mine',
      kind: 'simulated',
    });
    expect(s.getProviderProfile('mine')).toEqual({ name: 'mine', kind: 'simulated' });
    expect(s.deleteProviderProfile('mine')).toBe(true);
  });

  it('refuses settings that look like keys', () => {
    const s = store();
    s.setSetting('theme', { dark: true, keyboard: 'vim' });
    expect(s.getSetting('theme')).toEqual({ dark: true, keyboard: 'vim' });
    expect(() => s.setSetting('openaiApiKey', 'x')).toThrow(SecretRefusedError);
    expect(() => s.setSetting('providers', { openai: { apiKey: 'x' } })).toThrow(
      /refusing to store "openai.apiKey"/,
    );
    expect(() => s.setSetting('note', 'my key is sk-proj-1234567890abcdef')).toThrow(
      SecretRefusedError,
    );
    expect(s.listSettings()).toEqual({ theme: { dark: true, keyboard: 'vim' } });
  });

  it('a byte search of the database finds no key after a run that names only its variable', async () => {
    const file = join(dir, 'society.db');
    const KEY = 'sk-test-DO-NOT-STORE-7f3a9c0e51b2';
    const variable = 'SOCIETY_TEST_OPENAI_KEY';
    process.env[variable] = KEY;
    try {
      const s = openRunStore(file);
      s.saveProviderProfile({
        name: 'openai',
        kind: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: variable,
      });
      s.setSetting('defaultProvider', 'openai');
      s.setPrice('gpt-x', { inputPerMillion: 1.25, outputPerMillion: 10 });
      const run = newRun(s);
      const writer = s.eventWriter(run.id);
      const events = numbered(run.id, [
        ...everyKind.slice(0, 3),
        { type: 'model.error', callId: 'c1', node: 'a', error: `401: check ${variable}` },
        ...everyKind.slice(5),
      ]);
      for (const event of events) writer.push(event);
      writer.close();
      const request: NormalizedRequest = {
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'Tea?' }],
      };
      s.recordCall(run.id, requestKey(request), request, {
        text: 'Tea.',
        usage: { promptTokens: 1, completionTokens: 1 },
        model: 'gpt-x',
      });
      s.finishRun(run.id, { status: 'succeeded', error: `used ${variable}` });
      s.close();
    } finally {
      delete process.env[variable];
    }
    let found = 0;
    for (const name of await readdir(dir)) {
      const bytes = await readFile(join(dir, name));
      expect(bytes.indexOf(KEY), name).toBe(-1);
      if (bytes.indexOf(variable) >= 0) found++;
    }
    expect(found).toBeGreaterThan(0); // the search itself works: the variable's name is there
  });
});
