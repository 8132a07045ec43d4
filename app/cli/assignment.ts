/**
 * `NAME=VALUE` flags (--input, --set, --provider, --price): split in one place, light enough
 * for a command that answers at once (validate, params) to load without the engine.
 */
import { UsageError } from './errors.ts';

/** Splits `NAME=VALUE`; the value may itself contain "=". */
export function splitAssignment(text: string, flag: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} expects NAME=VALUE, got "${text}"`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}
