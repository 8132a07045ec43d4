/**
 * The `society` command: validate, inspect and run society graphs headless.
 * Exit codes (stable, scripts rely on them): 0 success, 1 the run failed, 2 invalid arguments
 * or graph. Errors are one readable line each, never a stack trace.
 */
import { createWriteStream, existsSync, readFileSync, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError, Option } from 'commander';
import { type CompileResult, compileGraph } from '../compiler/index.ts';
import { loadNodeRegistry } from '../nodes/registry.ts';
import { Cassette, type CassetteMode } from '../providers/cassette.ts';
import type { ProfileOverride } from '../providers/registry.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { type RunResult, startRun } from '../runtime/engine.ts';
import type { RunMode } from '../runtime/events.ts';
import { formatProblem } from '../schema/problems.ts';
import { readRunInputs, splitAssignment, UsageError } from './inputs.ts';
import { createProgress } from './progress.ts';

export const EXIT = { ok: 0, runFailed: 1, invalid: 2 } as const;

/** Raised to end the command with an exit code after printing `message`. */
class Exit extends Error {
  readonly code: number;
  constructor(code: number, message = '') {
    super(message);
    this.code = code;
  }
}

interface RunFlags {
  input: string[];
  replay?: string;
  replayThenLive?: string;
  record?: string;
  simulate?: boolean;
  json?: boolean;
  events?: string;
  db?: string;
  model: string[];
  provider: string[];
  quiet?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function buildProgram(): Command {
  const program = new Command()
    .name('society')
    .description(
      'Build, validate and run societies of AI minds (graphs of agents, votes and mindstorms).',
    )
    .version(readVersion(), '-v, --version')
    .showHelpAfterError('(run "society --help" for usage)')
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, 'society: ')),
    });

  program
    .command('validate')
    .description('check society documents; exit 0 if valid, 2 with one line per problem')
    .argument('<files...>', '*.society.json documents')
    .action(async (files: string[]) => {
      let invalid = false;
      for (const file of files) {
        const result = await compileFile(file);
        if (result.ok) {
          process.stdout.write(
            `${file}: valid (${result.plan.nodes.size} nodes, ${result.doc.edges.length} edges)\n`,
          );
        } else {
          invalid = true;
          for (const p of result.problems) process.stdout.write(`${file}: ${formatProblem(p)}\n`);
        }
      }
      if (invalid) throw new Exit(EXIT.invalid);
    });

  program
    .command('inspect')
    .description('print the compiled XState machine configs as JSON')
    .argument('<file>', 'a *.society.json document')
    .action(async (file: string) => {
      const result = await compileFile(file);
      if (!result.ok) throw problemsExit(file, result.problems);
      process.stdout.write(`${JSON.stringify(result.machines, null, 2)}\n`);
    });

  program
    .command('run')
    .description('run a society and print its outputs')
    .argument('<file>', 'a *.society.json document')
    .option(
      '-i, --input <NAME=VALUE>',
      'a value for an input or human node; NAME=@PATH reads a file (images by extension)',
      collect,
      [],
    )
    .option(
      '--replay <CASSETTE>',
      'answer every model call from a cassette; a call it lacks is an error',
    )
    .option(
      '--replay-then-live <CASSETTE>',
      'answer from a cassette, call the model for what it lacks, and add those calls to it',
    )
    .option('--record <CASSETTE>', 'call the models and record every call into a cassette')
    .option(
      '--simulate',
      'use the simulated provider: deterministic, labelled "[simulated]", no key needed (with --record, records its answers)',
    )
    .option('--json', 'print one JSON object: status, outputs, usage, runId')
    .option('--events <FILE.ndjson>', 'write every run event as one JSON line')
    .option(
      '--model <PROFILE=PROVIDER:MODEL>',
      'point a model profile elsewhere, e.g. vlm-1=ollama:llava',
      collect,
      [],
    )
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider, e.g. local=http://localhost:8000/v1 (append ,key=ENV_VAR if it needs a key)',
      collect,
      [],
    )
    .option('-q, --quiet', 'no progress display')
    .addOption(
      new Option('--db <FILE>', 'run store database (not used by this version)').hideHelp(),
    )
    .action(async (file: string, flags: RunFlags) => {
      process.exitCode = await runCommand(file, flags);
    });

  return program;
}

async function compileFile(
  file: string,
  patch?: (doc: Record<string, unknown>) => void,
): Promise<CompileResult> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Exit(
      EXIT.invalid,
      `society: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let input: unknown = text;
  if (patch) {
    try {
      const doc = JSON.parse(text);
      if (doc && typeof doc === 'object') {
        patch(doc);
        input = doc;
      }
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // Not JSON: compileGraph reports it with the document's path.
    }
  }
  return compileGraph(input, await loadNodeRegistry());
}

function problemsExit(file: string, problems: Array<Parameters<typeof formatProblem>[0]>): Exit {
  return new Exit(EXIT.invalid, problems.map((p) => `${file}: ${formatProblem(p)}`).join('\n'));
}

async function runCommand(file: string, flags: RunFlags): Promise<number> {
  const cassetteFlags = [flags.replay, flags.replayThenLive, flags.record].filter(Boolean);
  if (cassetteFlags.length > 1)
    throw new UsageError('use only one of --replay, --replay-then-live and --record');
  if (flags.simulate && (flags.replay || flags.replayThenLive)) {
    throw new UsageError('--simulate cannot be combined with --replay (it can with --record)');
  }
  if (flags.db)
    process.stderr.write('society: note: this version keeps no run store; --db is ignored\n');

  const providerOverrides = parseProviders(flags.provider);
  const compiled = await compileFile(file, (doc) => applyModelOverrides(doc, flags.model));
  if (!compiled.ok) throw problemsExit(file, compiled.problems);

  const cassette = await openCassette(flags);
  const blobs = new BlobStore();
  const { inputs, humanAnswers } = readRunInputs(flags.input, compiled.plan, blobs);
  const progress = flags.quiet
    ? undefined
    : createProgress(process.stderr, { live: process.stderr.isTTY === true });
  const events = flags.events ? openEvents(flags.events) : undefined;

  const run = startRun(compiled, {
    registry: await loadNodeRegistry(),
    inputs,
    humanAnswers,
    blobs,
    simulate: flags.simulate === true,
    ...(cassette ? { cassette: { cassette: cassette.cassette, mode: cassette.mode } } : {}),
    providerOverrides,
    ...(process.stdin.isTTY
      ? {
          askHuman: async ({ name, prompt }: { name: string; prompt: string }) => {
            progress?.suspend();
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            try {
              return await rl.question(`\n${prompt}\n${name}> `);
            } finally {
              rl.close();
              progress?.resume();
            }
          },
        }
      : {}),
  });
  run.subscribe((event) => {
    progress?.onEvent(event);
    events?.write(`${JSON.stringify(event)}\n`);
  });

  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write('\nsociety: cancelling the run (press Ctrl-C again to quit at once)\n');
      run.cancel();
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  const result = await run.result;
  process.off('SIGINT', onSigint);
  progress?.stop();
  if (cassette && cassette.mode !== 'replay') await cassette.cassette.save(cassette.path);
  if (events) await new Promise((resolve) => events.end(resolve));

  printResult(result, run.mode, flags.json === true);
  return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
}

function printResult(result: RunResult, mode: RunMode, json: boolean): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify({
        status: result.status,
        outputs: result.outputs,
        usage: result.usage,
        runId: result.runId,
        mode,
        simulated: result.simulated,
        ...(result.error ? { error: result.error } : {}),
      })}\n`,
    );
    return;
  }
  for (const [name, value] of Object.entries(result.outputs)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    process.stdout.write(`${name}: ${text.includes('\n') ? `\n${text}` : text}\n`);
  }
  const { calls, totalTokens } = result.usage;
  const label = result.simulated
    ? ' · simulated answers'
    : mode === 'replay'
      ? ' · replayed from cassette'
      : '';
  process.stderr.write(
    `${result.status} · ${calls} calls · ${totalTokens.toLocaleString('en-US')} tokens${label}\n`,
  );
  if (result.error) process.stderr.write(`society: ${result.error}\n`);
}

async function openCassette(
  flags: RunFlags,
): Promise<{ cassette: Cassette; mode: CassetteMode; path: string } | undefined> {
  const path = flags.replay ?? flags.replayThenLive ?? flags.record;
  if (!path) return undefined;
  const mode: CassetteMode = flags.replay
    ? 'replay'
    : flags.replayThenLive
      ? 'replay-then-live'
      : 'record';
  if (mode === 'record' && !existsSync(path))
    return {
      cassette: Cassette.fromJSON({ format: 'society-cassette', version: 1, entries: [] }),
      mode,
      path,
    };
  try {
    return { cassette: await Cassette.load(path), mode, path };
  } catch (error) {
    throw new UsageError(`cannot use cassette ${path}: ${(error as Error).message}`);
  }
}

function openEvents(path: string): WriteStream {
  const stream = createWriteStream(path);
  stream.on('error', (error) =>
    process.stderr.write(`society: cannot write events to ${path}: ${error.message}\n`),
  );
  return stream;
}

/** `--model vlm-1=ollama:llava` points an existing profile at another provider and model. */
function applyModelOverrides(doc: Record<string, unknown>, overrides: string[]): void {
  if (overrides.length === 0) return;
  const models = (doc.models ?? {}) as Record<string, Record<string, unknown>>;
  for (const assignment of overrides) {
    const [profile, target] = splitAssignment(assignment, '--model');
    const colon = target.indexOf(':');
    if (colon <= 0 || colon === target.length - 1)
      throw new UsageError(`--model expects PROFILE=PROVIDER:MODEL, got "${assignment}"`);
    if (!(profile in models))
      throw new UsageError(
        `--model: the graph has no model profile "${profile}" (profiles: ${Object.keys(models).join(', ') || 'none'})`,
      );
    models[profile] = {
      ...models[profile],
      provider: target.slice(0, colon),
      model: target.slice(colon + 1),
    };
  }
  doc.models = models;
}

/** `--provider NAME=URL[,key=ENV_VAR]` adds or redirects an OpenAI-compatible provider. */
function parseProviders(assignments: string[]): Record<string, ProfileOverride> {
  const overrides: Record<string, ProfileOverride> = {};
  for (const assignment of assignments) {
    const [name, rest] = splitAssignment(assignment, '--provider');
    const [url, ...options] = rest.split(',');
    if (!url || !URL.canParse(url))
      throw new UsageError(`--provider ${name}: "${url}" is not a URL`);
    const key = options.find((o) => o.startsWith('key='))?.slice(4);
    overrides[name] = { kind: 'openai-compatible', baseUrl: url, apiKeyEnv: key ?? '' };
  }
  return overrides;
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof Exit) {
      if (error.message) process.stderr.write(`${error.message}\n`);
      return error.code;
    }
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other parse error is a usage error (2).
      return error.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`society: ${error.message}\n`);
      return EXIT.invalid;
    }
    process.stderr.write(`society: ${(error as Error)?.message ?? String(error)}\n`);
    return EXIT.runFailed;
  }
}
