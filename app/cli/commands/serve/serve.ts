/**
 * `society serve PATHS…`: validates every document (exit 2 with one line per problem, as
 * `society validate` says them), checks the keys and hosts their runs need, then serves them
 * until Ctrl-C (app/serve/), reloading a document when its file changes. Runs land in the run store like `society run`'s.
 * With `--queue URL` they run on `society worker` processes (queue.ts) and are imported here.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PRICES } from '../../../costs/prices.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { loadOpenAiSdk } from '../../../providers/openai.ts';
import { formatProblem } from '../../../schema/problems.ts';
import { type ServedSociety, servedName, servedSociety } from '../../../serve/catalog.ts';
import { isLoopback, type ServeOptions, serve } from '../../../serve/index.ts';
import { compileFile } from '../../document-file.ts';
import { EXIT, Exit, UsageError } from '../../errors.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../../hosts.ts';
import { refuseMissingMcp, runMcpProfiles, runToolSources } from '../../mcp-servers.ts';
import { refuseMissingKeys } from '../../preflight.ts';
import { parseProviders } from '../../provider-flags.ts';
import { processRedactor } from '../../redaction.ts';
import { openStore, storedOverrides } from '../../run-store.ts';
import { checkServeQueueFlags, refuseKeyShapedSociety, servedQueueExecutor } from './queue.ts';
import { type ReloadCheck, watchDocuments } from './reload.ts';

export interface ServeFlags extends AllowHostFlags {
  port: string;
  host: string;
  token?: string;
  tokenFile?: string;
  /** False with `--no-auth`. */
  auth: boolean;
  concurrency: string;
  queueLimit: string;
  budget?: string;
  timeout?: string;
  maxBody: string;
  simulate?: boolean;
  /** MCP over stdin/stdout instead of an HTTP listener. */
  stdio?: boolean;
  provider: string[];
  db?: string;
  /** `--queue redis://…`: runs go to `society worker` processes. */
  queue?: string;
  queueSecretFile?: string;
}

/** What a refusal for a key not set offers besides setting it, in this command's flags. */
const SERVE_ALTERNATIVES =
  "redirect the profiles' provider with --provider NAME=URL[,key=VAR], or serve with --simulate";

/** The same for an MCP server the user has no profile for: `serve` takes no `--mcp` flag. */
const SERVE_MCP_ADVICE = { alternatives: 'serve with --simulate', oneRunFlag: false };

/** Serves until SIGINT or SIGTERM; resolves to the exit code. */
export async function serveCommand(paths: string[], flags: ServeFlags): Promise<number> {
  if (flags.stdio) return (await import('./stdio.ts')).serveStdioCommand(paths, flags);
  const { options, check, close } = await serveOptions(paths, flags);
  const serving = await serve(options).catch((error: NodeJS.ErrnoException) => {
    close();
    throw new UsageError(
      `cannot listen on ${flags.host}:${flags.port}: ${error.code ?? error.message}`,
    );
  });
  // Shown once the server listens: a token printed for a server that could not start is lost.
  if (options.token !== undefined && flags.token === undefined && flags.tokenFile === undefined)
    process.stderr.write(
      `society: the bearer token for this server (shown once): ${options.token}\n`,
    );
  const names = options.societies.map((s) => s.name).join(', ');
  process.stderr.write(
    `society: serving ${names} at ${serving.url} (OpenAPI: ${serving.url}/openapi.json, MCP: ${serving.url}/mcp)\n`,
  );
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
  });
  process.stderr.write('society: stopping (running runs are cancelled)\n');
  unwatch();
  await serving.close();
  close();
  return EXIT.ok;
}

/**
 * Everything `serve` needs from the paths and flags, refusing bad ones (exit 2) before anything
 * listens: the societies, the store, the token, the limits. `close` closes the store.
 */
export async function serveOptions(
  paths: string[],
  flags: ServeFlags,
): Promise<{ options: ServeOptions; check: ReloadCheck; close: () => void }> {
  const port = integer(flags.port, '--port', 0, 65535);
  const concurrency = integer(flags.concurrency, '--concurrency', 1, 1000);
  const queueLimit = integer(flags.queueLimit, '--queue-limit', 0, 100_000);
  const maxBodyBytes = integer(flags.maxBody, '--max-body', 1024, 2 ** 31);
  const budgetUsd = flags.budget === undefined ? undefined : Number(flags.budget);
  if (budgetUsd !== undefined && !(budgetUsd > 0))
    throw new UsageError(`--budget takes US dollars above 0, got "${flags.budget}"`);
  const timeoutSeconds = flags.timeout === undefined ? undefined : Number(flags.timeout);
  if (timeoutSeconds !== undefined && !(timeoutSeconds > 0))
    throw new UsageError(`--timeout takes seconds above 0, got "${flags.timeout}"`);
  // Over stdio only the client that started the process can talk to it: no token.
  const token = flags.stdio ? undefined : tokenOf(flags);
  const providerOverrides = parseProviders(flags.provider);
  const queue = checkServeQueueFlags(flags);

  const societies = await loadSocieties(paths);
  const store = openStore(flags.db);
  let executor: ServeOptions['executor'];
  try {
    const overrides = { ...storedOverrides(store), ...providerOverrides };
    const keys = { providerOverrides: overrides, simulate: flags.simulate === true };
    const allowedOrigins = runOrigins(store, flags);
    const mcp = runMcpProfiles(store);
    // What a run of each society needs, checked at start and again for a reloaded document.
    const check = (society: ServedSociety) => {
      // On a queue, keys, servers and hosts are the workers' own, checked there.
      if (queue) return refuseKeyShapedSociety(society);
      refuseMissingKeys(society.compiled.plan, keys, SERVE_ALTERNATIVES);
      refuseMissingMcp(society.compiled.plan, mcp, keys, SERVE_MCP_ADVICE);
      refuseUnallowedHosts(society.compiled.plan, allowedOrigins);
    };
    refuseUnservable(societies, check);
    // Runs a stopped server left running are interrupted: `society resume` finishes them.
    store.markInterrupted();
    if (queue) {
      executor = await servedQueueExecutor(queue, store, {
        simulate: flags.simulate === true,
        profiles: Object.keys(providerOverrides),
      });
      process.stderr.write(
        `society: runs go to society worker processes on ${queue.address.shown}, ${concurrency} at once\n`,
      );
    }
    if (!isLoopback(flags.host) && !flags.stdio)
      process.stderr.write(
        `society: warning: listening on ${flags.host}, beyond this machine, over plain HTTP: put TLS (a reverse proxy) in front, or the token and every run travel readable\n`,
      );
    // A server answers its first request as fast as the rest: the model client it calls with
    // (loaded with a process's first call otherwise) loads now; on a queue, workers call.
    if (!queue && !flags.simulate) await loadOpenAiSdk();
    return {
      options: {
        societies,
        store,
        registry: await loadNodeRegistry(),
        host: flags.host,
        port,
        token,
        concurrency,
        queueLimit,
        budgetUsd,
        timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
        maxBodyBytes,
        simulate: flags.simulate === true,
        providerOverrides: overrides,
        prices: { ...DEFAULT_PRICES, ...store.priceTable() },
        allowedOrigins,
        tools: runToolSources(mcp),
        ...(executor ? { executor } : {}),
        redact: (text) => processRedactor.text(text),
        onError: (message) => process.stderr.write(`society: a request failed: ${message}\n`),
      },
      check,
      close: () => {
        void executor?.close?.();
        store.close();
      },
    };
  } catch (error) {
    void executor?.close?.();
    store.close();
    throw error;
  }
}

/**
 * Checks every society before the server listens, and refuses them all at once (exit 2): each
 * problem on a line naming its file, as `society validate` names them, and what to do once.
 */
function refuseUnservable(societies: readonly ServedSociety[], check: ReloadCheck): void {
  const problems: string[] = [];
  const advice: string[] = [];
  for (const society of societies) {
    try {
      check(society);
    } catch (error) {
      if (!(error instanceof Exit) && !(error instanceof UsageError)) throw error;
      for (const line of error.message.split('\n')) {
        const text = line.replace(/^society: /, '');
        if (text.startsWith('nothing was sent')) {
          if (!advice.includes(text)) advice.push(text);
        } else problems.push(`${society.file}: ${text}`);
      }
    }
  }
  if (problems.length)
    throw new Exit(EXIT.invalid, [...problems, ...advice].map((l) => `society: ${l}`).join('\n'));
}

/** The documents in `paths` (folders: their *.society.json files), compiled and named. */
async function loadSocieties(paths: string[]): Promise<ServedSociety[]> {
  const files: string[] = [];
  for (const path of paths) {
    let folder = false;
    try {
      folder = statSync(path).isDirectory();
    } catch {
      throw new UsageError(`cannot read ${path}`);
    }
    if (!folder) files.push(path);
    else {
      const found = readdirSync(path)
        .filter((name) => name.endsWith('.society.json'))
        .sort()
        .map((name) => join(path, name));
      if (found.length === 0) throw new UsageError(`${path} holds no *.society.json document`);
      files.push(...found);
    }
  }
  const lines: string[] = [];
  const societies: ServedSociety[] = [];
  for (const file of files) {
    const compiled = await compileFile(file);
    if (!compiled.ok) {
      for (const p of compiled.problems) lines.push(`${file}: ${formatProblem(p)}`);
      continue;
    }
    const name = servedName(file);
    const twin = societies.find((s) => s.name === name);
    if (twin)
      throw new UsageError(
        `${file} and ${twin.file} would both be served as "${name}": rename one`,
      );
    societies.push(servedSociety(name, file, compiled));
  }
  if (lines.length) throw new Exit(EXIT.invalid, lines.join('\n'));
  return societies;
}

/** The token requests must carry: given, read from a file, none (`--no-auth`), or a new one. */
function tokenOf(flags: ServeFlags): string | undefined {
  const given = [flags.token !== undefined, flags.tokenFile !== undefined, !flags.auth].filter(
    Boolean,
  ).length;
  if (given > 1) throw new UsageError('use only one of --token, --token-file and --no-auth');
  if (!flags.auth) {
    if (!isLoopback(flags.host))
      throw new UsageError(
        `--no-auth is accepted only on a loopback address (127.0.0.1, ::1, localhost), not ${flags.host}`,
      );
    return undefined;
  }
  if (flags.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.tokenFile, 'utf8').trim();
    } catch (error) {
      throw new UsageError(
        `cannot read --token-file ${flags.tokenFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    return checkedToken(text, '--token-file');
  }
  if (flags.token !== undefined) return checkedToken(flags.token, '--token');
  return randomBytes(24).toString('base64url');
}

function checkedToken(token: string, flag: string): string {
  if (token.length < 16) throw new UsageError(`${flag}: a token needs at least 16 characters`);
  if (/\s/.test(token)) throw new UsageError(`${flag}: a token has no spaces`);
  return token;
}

function integer(text: string, flag: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, got "${text}"`);
  return n;
}
