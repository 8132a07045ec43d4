/** `society serve`: its arguments, options and help; its code loads only when it runs. */
import type { Command } from 'commander';
import { defaultDatabasePath } from '../../../store/paths.ts';
import { collect } from '../../options.ts';
import type { ServeFlags } from './serve.ts';

/** Adds `society serve` to the program. */
export function register(program: Command): void {
  program
    .command('serve')
    .description(
      'serve societies over HTTP: a JSON API with streamed events, an OpenAI-compatible endpoint (each society a model) and an MCP server at /mcp (each society a tool); or MCP over stdio with --stdio',
    )
    .argument('<paths...>', '*.society.json documents, or folders holding them')
    .option('--port <N>', 'the port to listen on (0: any free port)', '8787')
    .option(
      '--host <H>',
      'the address to listen on (beyond loopback, put TLS in front)',
      '127.0.0.1',
    )
    .option(
      '--token <T>',
      'the bearer token every request must carry (default: a new one, printed once)',
    )
    .option('--token-file <F>', 'read the bearer token from a file')
    .option(
      '--stdio',
      'serve MCP over stdin/stdout for a client that starts the server (Claude Desktop, Cursor): no HTTP listener, so --port, --host and the token do not apply; logs go to stderr',
    )
    .option('--no-auth', 'accept requests without a token (only on a loopback address)')
    .option('--concurrency <N>', 'runs at once; more wait in the queue', '2')
    .option('--queue-limit <N>', 'runs waiting beyond --concurrency; one more gets 429', '16')
    .option('--budget <USD>', 'US dollars all runs of this server may spend; then new runs get 429')
    .option('--timeout <SECONDS>', 'cancel a run that takes longer than this')
    .option('--max-body <BYTES>', 'largest request body (413 beyond it)', String(32 * 1024 * 1024))
    .option('--simulate', 'answer every model call with the simulated provider (no key needed)')
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider (append ,key=ENV_VAR, ,kind=huggingface)',
      collect,
      [],
    )
    .option(
      '--allow-host <ORIGIN>',
      'let the runs contact an origin not allowed with society hosts (repeatable)',
      collect,
      [],
    )
    .option(
      '--queue <URL>',
      'run on society worker processes through Redis (redis://HOST:PORT), the workers evals use',
    )
    .option(
      '--queue-secret-file <F>',
      'the secret shared with the workers (default: SOCIETY_QUEUE_SECRET)',
    )
    .option('--db <FILE>', `the run store (default: ${defaultDatabasePath()})`)
    .action(async (paths: string[], flags: ServeFlags) => {
      process.exitCode = await (await import('./serve.ts')).serveCommand(paths, flags);
    });
}
