/**
 * `society serve` in a test: the command's flags with test defaults (a token, port 0, small
 * limits, the stub provider), and a server started from them in-process, with how to stop it.
 */
import { join } from 'node:path';
import type { ServeFlags } from '../../app/cli/commands/serve/serve.ts';
import { serveOptions } from '../../app/cli/commands/serve/serve.ts';
import { serve } from '../../app/serve/index.ts';

/** The flags `society serve` gets, with a test's own `db`, token and stub URL. */
export function serveFlags(
  db: string,
  token: string,
  stubUrl: string,
  extra: Partial<ServeFlags> = {},
): ServeFlags {
  return {
    port: '0',
    host: '127.0.0.1',
    token,
    auth: true,
    concurrency: '2',
    queueLimit: '4',
    maxBody: '65536',
    provider: [`stub=${stubUrl}`],
    allowHost: [],
    db,
    ...extra,
  };
}

/** Serves `files` with a new store in `dir`; `stop` closes the server, then the store. */
export async function startServing(
  dir: string,
  files: string[],
  token: string,
  stubUrl: string,
  extra: Partial<ServeFlags> = {},
) {
  const db = join(dir, `runs-${Math.random().toString(36).slice(2)}.db`);
  const { options, check, close } = await serveOptions(
    files,
    serveFlags(db, token, stubUrl, extra),
  );
  const serving = await serve(options);
  return {
    serving,
    db,
    options,
    check,
    stop: async () => {
      await serving.close();
      close();
    },
  };
}
