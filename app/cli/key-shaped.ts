/**
 * Documents travel: `society export` writes them into a file to share, a queued eval puts them
 * into Redis for workers. A key pasted into a prompt would travel with them. The check is the
 * editor's Export's own (app/store/secrets.ts `keyShapedPath`): a string shaped like a key
 * (`sk-…`, `hf_…`, `AIza…`) or holding a key value this process knows. The answer is a JSON path,
 * never the value.
 */
import { keyShapedPath } from '../store/secrets.ts';
import { processRedactor } from './redaction.ts';

/** The JSON path of the first key-shaped string in `value`; undefined when there is none. */
export function keyShapedIn(value: unknown): string | undefined {
  return keyShapedPath(value, processRedactor.secrets);
}

/** What to do instead, said after a refusal or a warning. */
export const KEY_ADVICE =
  'Keys belong in the environment or Settings → Keys (a document names the variable, e.g. apiKeyEnv), never in a document; remove it';
