import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main as cli } from '../../app/cli/main.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { createMemoryVault } from '../secrets/vault.ts';
import { type ApiHandlers, createApiHandlers } from './handlers.ts';

const KEY = 'sk-settings-test-0123456789abcdefQRST';
const LAB_KEY = 'lab-token-0123456789abcdefWXYZ';

interface Opened {
  api: ApiHandlers;
  store: RunStore;
  db: string;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Handlers over a fresh store (or `db`'s), with no keys from the machine running the tests. They
 * allow pointing keys at servers, as the desktop app's do, unless told otherwise.
 */
function open(
  db?: string,
  env: NodeJS.ProcessEnv = {},
  keyRedirects: 'allowed' | 'refused' = 'allowed',
): Opened {
  let file = db;
  if (!file) {
    const dir = mkdtempSync(path.join(tmpdir(), 'society-settings-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    file = path.join(dir, 'society.db');
  }
  const store = openRunStore(file);
  const api = createApiHandlers({
    store,
    workspaceDir: path.dirname(file),
    keys: createMemoryVault(),
    env,
    log: () => {},
    keyRedirects,
  });
  cleanups.push(async () => {
    await api.close();
    store.close();
  });
  return { api, store, db: file };
}

/** The CLI's stdout for `args`, against the same store file. */
async function society(db: string, ...args: string[]): Promise<string> {
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  try {
    await cli([...args, '--db', db]);
  } finally {
    process.stdout.write = write;
  }
  return out;
}

describe('settings: provider profiles', () => {
  it('lists the built-in profiles and the ones added here, which the CLI then knows', async () => {
    const { api, db } = open();
    const before = (await api.call('settings.providers.list', {})) as {
      builtin: Array<{ name: string }>;
      custom: unknown[];
    };
    expect(before.builtin.map((p) => p.name)).toEqual(
      expect.arrayContaining(['openai', 'huggingface', 'ollama', 'simulated']),
    );
    expect(before.custom).toEqual([]);

    const after = await api.call('settings.providers.save', {
      name: 'lab',
      baseUrl: 'http://10.0.0.5:8000/v1',
      apiKeyEnv: 'LAB_TOKEN',
      concurrency: 3,
    });
    expect(after).toMatchObject({
      custom: [
        {
          name: 'lab',
          kind: 'openai-compatible',
          baseUrl: 'http://10.0.0.5:8000/v1',
          apiKeyEnv: 'LAB_TOKEN',
          concurrency: 3,
        },
      ],
    });
    expect(await society(db, 'providers')).toMatch(
      /^lab\s+http:\/\/10\.0\.0\.5:8000\/v1\s+key in LAB_TOKEN.*\(yours\)$/m,
    );
  });

  it('refuses what `society providers --add` refuses: keys in the URL, keys for variable names', async () => {
    const { api, store } = open();
    const refused = async (params: Record<string, unknown>, why: RegExp) => {
      await expect(api.call('settings.providers.save', params)).rejects.toThrow(why);
    };
    await refused(
      { name: 'lab', baseUrl: `http://10.0.0.5:8000/v1?api_key=${KEY}` },
      /refusing to store|query string/,
    );
    await refused(
      { name: 'lab', baseUrl: 'http://me:secret@10.0.0.5/v1' },
      /user name or password/,
    );
    await refused({ name: 'lab', baseUrl: 'http://x/v1', apiKeyEnv: KEY }, /refusing to store/);
    await refused(
      { name: 'lab', baseUrl: 'http://x/v1', apiKeyEnv: 'lab token' },
      /environment variable/,
    );
    await refused({ name: 'lab', baseUrl: 'ftp://x/v1' }, /http or https/);
    await refused({ name: 'lab', baseUrl: 'not a url' }, /absolute URL/);
    await refused({ name: '../lab', baseUrl: 'http://x/v1' }, /letters, digits/);
    // A pasted key in a field of its own is refused, not silently dropped.
    await refused({ name: 'lab', baseUrl: 'http://x/v1', apiKey: KEY }, /invalid params/);
    await refused(
      { name: 'lab', baseUrl: 'http://x/v1', apiKeyEnv: 'OPENAI_BASE_URL' },
      /configures/,
    );
    expect(store.listProviderProfiles()).toEqual([]);
  });

  it('edits, renames and removes a custom profile; built-in ones stay', async () => {
    const { api, store } = open();
    await api.call('settings.providers.save', { name: 'lab', baseUrl: 'http://x:1/v1' });
    await expect(
      api.call('settings.providers.save', { name: 'lab', baseUrl: 'http://y:1/v1' }),
    ).rejects.toThrow(/already have a provider called "lab"/);
    await api.call('settings.providers.save', {
      name: 'lab2',
      baseUrl: 'http://y:2/v1',
      apiKeyEnv: 'LAB_TOKEN',
      previousName: 'lab',
    });
    expect(store.listProviderProfiles()).toEqual([
      { name: 'lab2', kind: 'openai-compatible', baseUrl: 'http://y:2/v1', apiKeyEnv: 'LAB_TOKEN' },
    ]);
    await expect(api.call('settings.providers.remove', { name: 'openai' })).rejects.toThrow(
      /built in/,
    );
    await expect(
      api.call('settings.providers.save', {
        name: 'x',
        baseUrl: 'http://y/v1',
        previousName: 'nope',
      }),
    ).rejects.toThrow(/no provider "nope"/);
    expect(await api.call('settings.providers.remove', { name: 'lab2' })).toMatchObject({
      custom: [],
    });
  });
});

describe('settings: where a key goes', () => {
  it('refuses a change of where a key goes unless the transport allows it, saying how to make it', async () => {
    const refused = open(undefined, {}, 'refused');
    const allowed = open(undefined, {}, 'allowed');
    const redirect = { name: 'openai', baseUrl: 'https://proxy.example/v1' };
    await expect(refused.api.call('settings.providers.save', redirect)).rejects.toThrow(
      /changing where provider "openai" points.*run `society providers --add openai=https:\/\/proxy.example\/v1` in a terminal/,
    );
    expect(refused.store.listProviderProfiles()).toEqual([]);
    // What the profile would be is checked first: a key pasted as the variable gets that answer.
    await expect(
      refused.api.call('settings.providers.save', { ...redirect, apiKeyEnv: KEY }),
    ).rejects.toThrow(/refusing to store/);

    expect(await allowed.api.call('settings.providers.save', redirect)).toMatchObject({
      custom: [{ name: 'openai', baseUrl: 'https://proxy.example/v1' }],
    });
  });
});

describe('settings: keys', () => {
  it("takes a key for a custom profile's variable, shows only its last four characters, and forgets it with the profile", async () => {
    const { api, store, db } = open();
    expect(await api.call('settings.keys', {})).toEqual([
      { name: 'OPENAI_API_KEY', configured: false },
      { name: 'HF_TOKEN', configured: false },
    ]);
    await expect(
      api.call('settings.setKey', { name: 'LAB_TOKEN', value: LAB_KEY }),
    ).rejects.toThrow(/no provider reads its key from LAB_TOKEN/);
    await api.call('settings.providers.save', {
      name: 'lab',
      baseUrl: 'http://x/v1',
      apiKeyEnv: 'LAB_TOKEN',
    });
    const status = await api.call('settings.setKey', { name: 'LAB_TOKEN', value: LAB_KEY });
    expect(status).toEqual({ name: 'LAB_TOKEN', configured: true, last4: 'WXYZ' });
    expect(await api.call('settings.keys', {})).toContainEqual(status);
    expect(api.secrets()).toContain(LAB_KEY);
    // The key reaches no answer and no byte of the store.
    const answers = JSON.stringify([
      await api.call('settings.keys', {}),
      await api.call('settings.providers.list', {}),
    ]);
    expect(answers).not.toContain(LAB_KEY);
    store.checkpoint();
    expect(readFileSync(db).includes(LAB_KEY)).toBe(false);

    await api.call('settings.providers.remove', { name: 'lab' });
    expect((await api.call('settings.keys', {})) as unknown[]).toHaveLength(2);
    // Forgotten by the vault, but still scrubbed: a run started before may yet echo it.
    expect(api.secrets()).toContain(LAB_KEY);
  });

  it('never takes a variable the engine reads as configuration, nor an unknown one', async () => {
    const { api } = open();
    for (const name of ['OPENAI_BASE_URL', 'PATH', 'NODE_OPTIONS']) {
      await expect(api.call('settings.setKey', { name, value: KEY })).rejects.toThrow(
        /invalid params/,
      );
    }
    await expect(api.call('settings.setKey', { name: 'lower', value: KEY })).rejects.toThrow(
      /invalid params/,
    );
  });

  it("tells a key from the studio's environment apart, by its last four characters only", async () => {
    const { api } = open(undefined, { OPENAI_API_KEY: KEY });
    const keys = await api.call('settings.keys', {});
    expect(keys).toContainEqual({
      name: 'OPENAI_API_KEY',
      configured: true,
      last4: 'QRST',
      source: 'environment',
    });
    expect(JSON.stringify(keys)).not.toContain(KEY.slice(0, 12));
  });
});

describe('settings: prices', () => {
  it('shows defaults and overrides, sets and resets them as `society prices` does', async () => {
    const { api, db } = open();
    const rows = (await api.call('settings.prices.get', {})) as Array<Record<string, unknown>>;
    expect(rows).toContainEqual({
      model: 'gpt-4o-mini',
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
      default: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
      overridden: false,
    });

    await api.call('settings.prices.set', {
      model: 'gpt-4o-mini',
      inputPerMillion: 0.2,
      outputPerMillion: 0.8,
    });
    const set = await api.call('settings.prices.set', {
      model: 'llava:13b',
      inputPerMillion: 0,
      outputPerMillion: 0.01,
    });
    expect(set).toContainEqual({
      model: 'gpt-4o-mini',
      inputPerMillion: 0.2,
      outputPerMillion: 0.8,
      default: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
      overridden: true,
    });
    expect(set).toContainEqual({
      model: 'llava:13b',
      inputPerMillion: 0,
      outputPerMillion: 0.01,
      overridden: true,
    });
    const printed = await society(db, 'prices');
    expect(printed).toMatch(/^gpt-4o-mini\s+0\.200\s+0\.800\s+\(yours\)$/m);
    expect(printed).toMatch(/^llava:13b\s+0\.000\s+0\.010\s+\(yours\)$/m);

    const reset = await api.call('settings.prices.reset', { model: 'gpt-4o-mini' });
    expect(reset).toContainEqual(
      expect.objectContaining({ model: 'gpt-4o-mini', inputPerMillion: 0.15, overridden: false }),
    );
    await expect(api.call('settings.prices.reset', { model: 'gpt-4o' })).rejects.toThrow(
      /no price of yours/,
    );
    for (const bad of [
      { model: 'gpt-4o', inputPerMillion: -1, outputPerMillion: 1 },
      { model: 'gpt 4o', inputPerMillion: 1, outputPerMillion: 1 },
      { model: 'gpt-4o', inputPerMillion: Number.NaN, outputPerMillion: 1 },
    ]) {
      await expect(api.call('settings.prices.set', bad)).rejects.toThrow(/invalid params/);
    }
    await expect(
      api.call('settings.prices.set', { model: KEY, inputPerMillion: 1, outputPerMillion: 1 }),
    ).rejects.toThrow(/looks like a key/);
  });
});

describe('settings: default models', () => {
  it('starts from the built-in defaults and keeps what is set in the store', async () => {
    const first = open();
    expect(await first.api.call('settings.defaults.get', {})).toEqual({
      text: { provider: 'openai', model: 'gpt-4o-mini' },
      vision: { provider: 'openai', model: 'gpt-4o-mini' },
    });
    await first.api.call('settings.providers.save', { name: 'lab', baseUrl: 'http://x/v1' });
    const chosen = {
      text: { provider: 'lab', model: 'llama3.1' },
      vision: { provider: 'ollama', model: 'llava' },
    };
    expect(await first.api.call('settings.defaults.set', chosen)).toEqual(chosen);
    await expect(
      first.api.call('settings.defaults.set', {
        ...chosen,
        vision: { provider: 'nowhere', model: 'm' },
      }),
    ).rejects.toThrow(/vision: there is no provider "nowhere"/);
    await expect(
      first.api.call('settings.defaults.set', { ...chosen, text: { provider: 'lab' } }),
    ).rejects.toThrow(/invalid params/);

    // A studio started later over the same store finds them.
    const db = first.db;
    await first.api.close();
    first.store.close();
    cleanups.pop();
    const second = open(db);
    expect(await second.api.call('settings.defaults.get', {})).toEqual(chosen);
  });
});
