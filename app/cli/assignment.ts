/**
 * `NAME=VALUE` flags (--input, --set, --provider, --price): split in one place, light enough
 * for a command that answers at once (validate, params) to load without the engine.
 */
import { isPrototypeName, prototypeNameMessage } from '../schema/names.ts';
import { UsageError } from './errors.ts';

/**
 * Splits `NAME=VALUE`; the value may itself contain "=". NAME keys a map (parameters, inputs,
 * providers, prices, `--map`), so `__proto__`, `constructor` and their kin are refused here.
 */
export function splitAssignment(text: string, flag: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} expects NAME=VALUE, got "${text}"`);
  const name = text.slice(0, eq);
  if (isPrototypeName(name)) {
    throw new UsageError(`${flag} ${text}: ${prototypeNameMessage(name, 'a name')}`);
  }
  return [name, text.slice(eq + 1)];
}
