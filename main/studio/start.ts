/**
 * `npm run studio`: the editor in your browser, served on 127.0.0.1 with a per-launch token.
 *
 *   node main/studio/start.ts [--port N] [--workspace DIR] [--db FILE]
 *
 * --workspace defaults to $SOCIETY_WORKSPACE, else `~/Society Studio/`; --db to the run store
 * the `society` command uses; --port to the port this workspace's studio had last time (so a
 * restarted studio's pages keep their origin and what they kept in it, renderer/drafts.ts), else
 * a free one. Runs until Ctrl-C, then cancels running runs (they are recorded as cancelled) and
 * exits.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDatabasePath, openRunStore } from '../../app/store/index.ts';
import { portsFile, startOnRememberedPort } from './ports.ts';
import { startStudio } from './server.ts';

/** The workspace folder when none is given. */
export function defaultWorkspace(env: NodeJS.ProcessEnv = process.env): string {
  return env.SOCIETY_WORKSPACE || path.join(homedir(), 'Society Studio');
}

const USAGE = `usage: npm run studio -- [--port N] [--workspace DIR] [--db FILE]

  --port N          the port on 127.0.0.1 (default: the workspace's port last time, else a free one)
  --workspace DIR   the folder of .society.json documents (default: $SOCIETY_WORKSPACE or ~/Society Studio)
  --db FILE         the run store (default: ${defaultDatabasePath()})
`;

/** Starts the studio from command-line arguments; resolves when it has stopped. */
export async function runStudio(argv: string[]): Promise<number> {
  let values: { port?: string; workspace?: string; db?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        workspace: { type: 'string' },
        db: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`society studio: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`society studio: --port must be a port number, got "${values.port}"\n`);
    return 2;
  }
  const dbFile = values.db ?? defaultDatabasePath();
  let store: ReturnType<typeof openRunStore>;
  try {
    store = openRunStore(dbFile);
  } catch (error) {
    process.stderr.write(
      `society studio: cannot open the run store ${dbFile}: ${(error as Error).message}\n`,
    );
    return 2;
  }
  let studio: Awaited<ReturnType<typeof startStudio>>;
  const workspaceDir = path.resolve(values.workspace ?? defaultWorkspace());
  const start = (on: number) => startStudio({ port: on, store, workspaceDir });
  try {
    studio =
      values.port === undefined
        ? await startOnRememberedPort(start, portsFile(dbFile), workspaceDir)
        : await start(port);
  } catch (error) {
    store.close();
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(
      `society studio: cannot start: ${code === 'EADDRINUSE' ? `port ${port} is in use` : (error as Error).message}\n`,
    );
    return 1;
  }
  process.stdout.write(`Society Studio is running at ${studio.url}\n`);
  process.stdout.write('Open that address in your browser. Press Ctrl-C to stop.\n');

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stderr.write('\nsociety studio: stopping\n');
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await studio.close();
  store.close();
  return 0;
}

if (import.meta.main) process.exitCode = await runStudio(process.argv.slice(2));
