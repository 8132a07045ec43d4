/**
 * `society hosts`: lists the origins documents may contact (a simulator's URL), after any
 * `--allow` or `--revoke`. They are kept in the run store's settings, where the studio's
 * Settings → Allowed hosts reads and writes them too.
 */
import { parseOrigin } from '../../runtime/origins.ts';
import { allowedOrigins, allowOrigin, revokeOrigin } from '../../store/allowed-hosts.ts';
import { UsageError } from '../errors.ts';
import { openStore } from '../run-store.ts';

export interface HostsFlags {
  allow: string[];
  revoke: string[];
  json?: boolean;
  db?: string;
}

/** Applies `--allow` and `--revoke`, then prints the allowed origins. */
export function hostsCommand(flags: HostsFlags): void {
  const parse = (flag: string) => (text: string) => {
    try {
      return parseOrigin(text);
    } catch (error) {
      throw new UsageError(`${flag} ${(error as Error).message}`);
    }
  };
  // Every argument is checked before any is stored, so a typo changes nothing.
  const allow = flags.allow.map(parse('--allow'));
  const revoke = flags.revoke.map(parse('--revoke'));
  const store = openStore(flags.db);
  try {
    for (const origin of allow) allowOrigin(store, origin);
    for (const origin of revoke) {
      if (!revokeOrigin(store, origin).removed)
        process.stderr.write(`society: ${origin} was not allowed\n`);
    }
    const origins = allowedOrigins(store);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ origins })}\n`);
      return;
    }
    if (origins.length === 0) {
      process.stdout.write(
        'no hosts allowed: a document contacts an outside URL (a simulator) only once you allow its origin, e.g. society hosts --allow http://127.0.0.1:5123\n',
      );
      return;
    }
    for (const origin of origins) process.stdout.write(`${origin}\n`);
  } finally {
    store.close();
  }
}
