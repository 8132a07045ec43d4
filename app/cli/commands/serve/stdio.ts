/**
 * `society serve --stdio PATHS…`: the societies as MCP tools over stdin/stdout, for a client that
 * starts the server itself (Claude Desktop, Cursor). The documents are checked as for the HTTP
 * server and reloaded when their files change; stdout carries the protocol only, so everything
 * the command says goes to stderr. It ends when the client closes stdin, or on Ctrl-C.
 */
import { serveStdio } from '../../../serve/stdio.ts';
import { EXIT } from '../../errors.ts';
import { watchDocuments } from './reload.ts';
import { type ServeFlags, serveOptions } from './serve.ts';

/** Serves over stdio until the client leaves; resolves to the exit code. */
export async function serveStdioCommand(paths: string[], flags: ServeFlags): Promise<number> {
  // A line printed to stdout by any code would corrupt the protocol: the console writes to stderr.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;
  const { options, check, close } = await serveOptions(paths, flags);
  const serving = await serveStdio(options);
  const names = options.societies.map((s) => s.name).join(', ');
  process.stderr.write(`society: serving ${names} as MCP tools over stdio\n`);
  const unwatch = watchDocuments(options.societies, serving.replace, check, (line) =>
    process.stderr.write(`society: ${line}\n`),
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    void serving.closed.then(stop);
  });
  unwatch();
  await serving.close();
  close();
  return EXIT.ok;
}
