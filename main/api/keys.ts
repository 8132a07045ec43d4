/**
 * Provider keys entered in settings (`settings.keys`, `settings.setKey`, `settings.clearKey`):
 * kept in the vault, never sent back nor stored, and taught to the redactor at once.
 */
import { type KeyStatus, keyStatus } from '../secrets/vault.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';

/** Keys shorter than this cannot be redacted safely (app/providers/secrets.ts skips them). */
const MIN_KEY_LENGTH = 8;

/** The key methods of `settings.*`. */
export function keyMethods(
  ctx: ApiContext,
): ApiMethods<'settings.keys' | 'settings.setKey' | 'settings.clearKey'> {
  const { keys, baseEnv } = ctx;

  const checkKeyName = (method: string, name: string) => {
    if (!ctx.keyNames().includes(name)) {
      // Phrased like a params error: the name is the bad parameter, and only the store knows it.
      throw new ApiError(
        `invalid params for ${method}: name: no provider reads its key from ${name} (keys: ${ctx.keyNames().join(', ')})`,
      );
    }
  };

  /** A key entered in settings wins; else one from the backend's own environment. */
  const keyStatusOf = (name: string): KeyStatus => {
    const status = keys.status(name);
    if (status.configured) return status;
    const fromEnv = baseEnv[name];
    return fromEnv ? { ...keyStatus(name, fromEnv), source: 'environment' } : status;
  };

  return {
    async 'settings.keys'() {
      return ctx.keyNames().map(keyStatusOf);
    },

    async 'settings.setKey'({ name, value }) {
      checkKeyName('settings.setKey', name);
      const key = value.trim();
      if (key.length < MIN_KEY_LENGTH || /\s/.test(key)) {
        // Shorter values could not be scrubbed from logs and events without mangling them.
        throw new ApiError(
          `that does not look like a key for ${name}: keys are at least ${MIN_KEY_LENGTH} characters with no spaces`,
        );
      }
      await keys.set(name, key);
      ctx.secretsChanged();
      return keys.status(name);
    },

    async 'settings.clearKey'({ name }) {
      checkKeyName('settings.clearKey', name);
      await keys.clear(name);
      ctx.secretsChanged();
      return keyStatusOf(name);
    },
  };
}
