import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALLOW_BASIC_TEXT_VARIABLE,
  type KeyCipher,
  keyStorageMode,
  openEncryptedVault,
  type StorageBackend,
} from './encrypted-vault.ts';

/** Test values shaped like keys, put together here so no key-like literal sits in the source. */
const KEY = ['sk', 'proj', 'FAKEtestVALUEforTheVault9876'].join('-');
const HF = ['hf', 'FAKEtestVALUEforTheVault5432'].join('_');

/** A stand-in for safeStorage: AES-256-GCM with a key of its own. */
function aesCipher(secret = randomBytes(32)): KeyCipher & { calls: { encrypt: number } } {
  const calls = { encrypt: 0 };
  return {
    calls,
    async encrypt(plain) {
      calls.encrypt++;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    async decrypt(bytes) {
      const data = Buffer.from(bytes);
      const decipher = createDecipheriv('aes-256-gcm', secret, data.subarray(0, 12));
      decipher.setAuthTag(data.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]);
      return { result: plain.toString('utf8'), shouldReEncrypt: false };
    },
  };
}

describe('the encrypted key vault', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'society-vault-'));
    file = path.join(dir, 'user-data', 'keys.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps keys across restarts and writes only ciphertext', async () => {
    const cipher = aesCipher();
    const vault = await openEncryptedVault({ file, cipher, log: () => {} });
    expect(vault.persistent).toBe(true);
    await vault.set('OPENAI_API_KEY', KEY);
    await vault.set('HF_TOKEN', HF);
    expect(vault.status('OPENAI_API_KEY')).toEqual({
      name: 'OPENAI_API_KEY',
      configured: true,
      last4: '9876',
    });

    const stored = readFileSync(file, 'utf8');
    for (const secret of [KEY, HF]) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(4, 20));
      expect(stored).not.toContain(Buffer.from(secret).toString('base64').slice(0, 16));
      expect(stored).not.toContain(Buffer.from(secret).toString('hex').slice(0, 16));
    }
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o077).toBe(0);
    // No temporary files are left next to it.
    expect(readdirSync(path.dirname(file))).toEqual(['keys.json']);

    const reopened = await openEncryptedVault({ file, cipher, log: () => {} });
    expect(reopened.values()).toEqual({ OPENAI_API_KEY: KEY, HF_TOKEN: HF });

    await reopened.clear('OPENAI_API_KEY');
    const again = await openEncryptedVault({ file, cipher, log: () => {} });
    expect(again.values()).toEqual({ HF_TOKEN: HF });
    expect(again.status('OPENAI_API_KEY')).toEqual({ name: 'OPENAI_API_KEY', configured: false });
  });

  it('keeps a key for a custom provider variable too', async () => {
    const cipher = aesCipher();
    const vault = await openEncryptedVault({ file, cipher, log: () => {} });
    await vault.set('GROQ_API_KEY', 'gsk_abcdefghijklmnop');
    const reopened = await openEncryptedVault({ file, cipher, log: () => {} });
    expect(reopened.values()).toEqual({ GROQ_API_KEY: 'gsk_abcdefghijklmnop' });
  });

  it('reports a key the keychain can no longer decrypt, and keeps it until it is entered again (S14)', async () => {
    const vault = await openEncryptedVault({ file, cipher: aesCipher(), log: () => {} });
    await vault.set('OPENAI_API_KEY', KEY);
    const before = readFileSync(file, 'utf8');

    const lines: string[] = [];
    const changedKeychain = aesCipher();
    const reopened = await openEncryptedVault({
      file,
      cipher: changedKeychain,
      log: (l) => lines.push(l),
    });
    expect(reopened.status('OPENAI_API_KEY').configured).toBe(false);
    expect(lines.join('\n')).toMatch(/OPENAI_API_KEY cannot be decrypted.*enter it again/);
    expect(lines.join('\n')).not.toContain(KEY);
    // Not reset: the file is untouched until the person acts.
    expect(readFileSync(file, 'utf8')).toBe(before);
    await reopened.set('HF_TOKEN', HF);
    expect(JSON.parse(readFileSync(file, 'utf8')).keys.OPENAI_API_KEY).toBe(
      JSON.parse(before).keys.OPENAI_API_KEY,
    );
    await reopened.set('OPENAI_API_KEY', `${KEY}X`);
    const fresh = await openEncryptedVault({ file, cipher: changedKeychain, log: () => {} });
    expect(fresh.values()).toEqual({ OPENAI_API_KEY: `${KEY}X`, HF_TOKEN: HF });
  });

  it('stores a key again when the keychain asks for it', async () => {
    const base = aesCipher();
    const vault = await openEncryptedVault({ file, cipher: base, log: () => {} });
    await vault.set('OPENAI_API_KEY', KEY);
    const before = readFileSync(file, 'utf8');
    const rotating: KeyCipher = {
      encrypt: base.encrypt,
      decrypt: async (bytes) => ({ ...(await base.decrypt(bytes)), shouldReEncrypt: true }),
    };
    const reopened = await openEncryptedVault({ file, cipher: rotating, log: () => {} });
    expect(reopened.values()).toEqual({ OPENAI_API_KEY: KEY });
    expect(readFileSync(file, 'utf8')).not.toBe(before);
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
  });

  it('moves an unreadable file aside instead of failing or overwriting it', async () => {
    await openEncryptedVault({ file, cipher: aesCipher(), log: () => {} }).then((v) =>
      v.set('HF_TOKEN', HF),
    );
    await writeFile(file, '{ not json');
    const lines: string[] = [];
    const vault = await openEncryptedVault({
      file,
      cipher: aesCipher(),
      log: (l) => lines.push(l),
    });
    expect(vault.values()).toEqual({});
    expect(lines[0]).toMatch(/not readable.*moved to/);
    const names = readdirSync(path.dirname(file));
    expect(names.some((n) => n.startsWith('keys.json.unreadable-'))).toBe(true);
  });

  it('keeps keys in memory only, writing nothing, when there is no cipher', async () => {
    const vault = await openEncryptedVault({ file, cipher: undefined, log: () => {} });
    expect(vault.persistent).toBe(false);
    await vault.set('OPENAI_API_KEY', KEY);
    expect(vault.values()).toEqual({ OPENAI_API_KEY: KEY });
    expect(existsSync(file)).toBe(false);
    await vault.clear('OPENAI_API_KEY');
    expect(vault.values()).toEqual({});
  });
});

describe('where keys may be stored (S11)', () => {
  const linux = (backend: StorageBackend, env: Record<string, string> = {}) =>
    keyStorageMode({ encryptionAvailable: true, platform: 'linux', backend, env });

  it.each(['gnome_libsecret', 'kwallet', 'kwallet5', 'kwallet6', 'unknown'] as const)(
    'stores keys with the %s backend',
    (backend) => {
      expect(linux(backend)).toEqual({ persist: true });
    },
  );

  it('keeps keys in memory under basic_text unless the person opts in', () => {
    const mode = linux('basic_text');
    expect(mode.persist).toBe(false);
    expect(mode.warning).toContain(ALLOW_BASIC_TEXT_VARIABLE);
    const optedIn = linux('basic_text', { [ALLOW_BASIC_TEXT_VARIABLE]: '1' });
    expect(optedIn.persist).toBe(true);
    expect(optedIn.warning).toMatch(/weak/);
  });

  it('keeps keys in memory when no keychain is available', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const mode = keyStorageMode({
        encryptionAvailable: false,
        platform,
        backend: undefined,
        env: {},
      });
      expect(mode.persist).toBe(false);
      expect(mode.warning).toMatch(/until the app quits/);
    }
  });

  it('stores keys on macOS and Windows when the keychain works', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      expect(
        keyStorageMode({ encryptionAvailable: true, platform, backend: undefined, env: {} }),
      ).toEqual({ persist: true });
    }
  });
});
