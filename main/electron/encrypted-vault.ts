/**
 * The desktop app's key vault: the KeyVault of main/secrets/vault.ts, with every key encrypted
 * at rest by the operating system's keychain (Electron's safeStorage, S10) in one file under the
 * app's user data folder. The encryption is injected, so this module imports no `electron` and
 * is tested under Node; main.ts passes safeStorage's async API.
 *
 * Keys are decrypted once when the vault opens (the KeyVault reads are synchronous) and live in
 * memory afterwards, like the studio's. The file holds ciphertext only, written atomically with
 * owner-only permissions. A key that no longer decrypts (a lost or changed keychain, S14) is
 * reported in the log and kept in the file untouched until the person enters or clears it
 * again: never a crash, never a silent reset.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isKeyVariable, type KeyName, type KeyVault, keyStatus } from '../secrets/vault.ts';

/** Encrypts and decrypts strings: safeStorage's async API, or a stand-in in tests. */
export interface KeyCipher {
  encrypt(plainText: string): Promise<Uint8Array>;
  /** `shouldReEncrypt`: the keychain rotated its key; the value should be stored again. */
  decrypt(cipherText: Uint8Array): Promise<{ result: string; shouldReEncrypt: boolean }>;
}

/** The vault file: base64 ciphertext by key name. */
const VaultFile = z.object({
  version: z.literal(1),
  keys: z.record(z.string(), z.string()),
});

export interface EncryptedVaultOptions {
  /** The vault file, e.g. `<userData>/keys.json`. */
  file: string;
  /**
   * The cipher; undefined means keys cannot be stored safely here (see `keyStorageMode`), and
   * the vault keeps them in memory only, like the studio's.
   */
  cipher: KeyCipher | undefined;
  /** Where warnings go (never a key). */
  log?: (line: string) => void;
}

/** A KeyVault that says whether it writes keys to disk. */
export interface EncryptedVault extends KeyVault {
  /** False when keys last only until the app quits. */
  readonly persistent: boolean;
  /** Settles once every write asked for so far is on disk. */
  flush(): Promise<void>;
}

/** Opens the vault: reads and decrypts the stored keys. */
export async function openEncryptedVault(options: EncryptedVaultOptions): Promise<EncryptedVault> {
  const { file, cipher } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const keys = new Map<KeyName, string>();
  /** Ciphertext that did not decrypt, kept as it was until the key is entered or cleared. */
  const unreadable = new Map<string, string>();
  /** Ciphertext of the keys in `keys`, as written. */
  const stored = new Map<KeyName, string>();
  let writes: Promise<void> = Promise.resolve();

  const save = (): Promise<void> => {
    const snapshot = {
      version: 1 as const,
      keys: { ...Object.fromEntries(unreadable), ...Object.fromEntries(stored) },
    };
    writes = writes.then(() => writeAtomically(file, `${JSON.stringify(snapshot, null, 2)}\n`));
    return writes;
  };

  if (cipher && existsSync(file)) {
    let entries: Record<string, string> = {};
    try {
      entries = VaultFile.parse(JSON.parse(await readFile(file, 'utf8'))).keys;
    } catch (error) {
      // Keep the unreadable file for the person to inspect, and start with no keys.
      const aside = `${file}.unreadable-${Date.now()}`;
      await rename(file, aside).catch(() => {});
      log(
        `society desktop: the key file ${file} is not readable (${(error as Error).message}); it was moved to ${aside}. Enter your keys again in Settings.`,
      );
    }
    let reEncrypt = false;
    for (const [name, value] of Object.entries(entries)) {
      if (!isKeyVariable(name)) {
        unreadable.set(name, value);
        continue;
      }
      try {
        const { result, shouldReEncrypt } = await cipher.decrypt(Buffer.from(value, 'base64'));
        keys.set(name, result);
        stored.set(name, value);
        if (shouldReEncrypt) {
          stored.set(name, Buffer.from(await cipher.encrypt(result)).toString('base64'));
          reEncrypt = true;
        }
      } catch {
        unreadable.set(name, value);
        log(
          `society desktop: the stored ${name} cannot be decrypted (the system keychain may have changed); enter it again in Settings.`,
        );
      }
    }
    if (reEncrypt) await save();
  }

  return {
    persistent: cipher !== undefined,
    async set(name, value) {
      if (!cipher) {
        keys.set(name, value);
        return;
      }
      const encrypted = Buffer.from(await cipher.encrypt(value)).toString('base64');
      keys.set(name, value);
      stored.set(name, encrypted);
      unreadable.delete(name);
      await save();
    },
    async clear(name) {
      keys.delete(name);
      if (!cipher) return;
      stored.delete(name);
      unreadable.delete(name);
      await save();
    },
    status(name) {
      return keyStatus(name, keys.get(name));
    },
    values() {
      return Object.fromEntries(keys);
    },
    flush: () => writes,
  };
}

/** Writes a file owner-only, through a temporary file, so a crash never leaves half of it. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, file);
}

/** The Linux password stores safeStorage may pick (`safeStorage.getSelectedStorageBackend()`). */
export type StorageBackend =
  | 'basic_text'
  | 'gnome_libsecret'
  | 'kwallet'
  | 'kwallet5'
  | 'kwallet6'
  | 'unknown';

/** Whether keys are stored encrypted on disk or kept in memory, and what to tell the person. */
export interface KeyStorageMode {
  persist: boolean;
  /** A warning for the log when keys are not persisted or only weakly protected. */
  warning?: string;
}

/** The environment variable that opts in to storing keys under Linux's `basic_text` backend. */
export const ALLOW_BASIC_TEXT_VARIABLE = 'SOCIETY_ALLOW_BASIC_TEXT_KEYS';

/**
 * Decides whether keys may be written to disk (S11). With no working keychain they are kept in
 * memory only. On Linux, the `basic_text` backend encrypts with a password hardcoded in
 * Chromium, which protects nothing: keys stay in memory unless the person opts in with
 * SOCIETY_ALLOW_BASIC_TEXT_KEYS=1. (On Windows, DPAPI does not protect keys from other programs
 * run by the same user either; that is said in main/README.md, not claimed away.)
 */
export function keyStorageMode(options: {
  encryptionAvailable: boolean;
  platform: NodeJS.Platform;
  backend: StorageBackend | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): KeyStorageMode {
  if (!options.encryptionAvailable) {
    return {
      persist: false,
      warning:
        'society desktop: the system keychain is not available, so keys you enter last until the app quits',
    };
  }
  if (options.platform === 'linux' && options.backend === 'basic_text') {
    if (options.env[ALLOW_BASIC_TEXT_VARIABLE] === '1') {
      return {
        persist: true,
        warning: `society desktop: no system keyring was found; keys are stored with Chromium's built-in password (weak protection), as ${ALLOW_BASIC_TEXT_VARIABLE}=1 asks`,
      };
    }
    return {
      persist: false,
      warning: `society desktop: no system keyring (libsecret or KWallet) was found, so keys you enter last until the app quits; set ${ALLOW_BASIC_TEXT_VARIABLE}=1 to store them with weak protection anyway`,
    };
  }
  return { persist: true };
}
