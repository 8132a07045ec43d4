/**
 * The `society` command: validate, inspect and run society graphs headless.
 * Exit codes (stable, scripts rely on them): 0 success, 1 the run failed, 2 invalid arguments
 * or graph. Errors are one readable line each, never a stack trace.
 */
import {
  createWriteStream,
  existsSync,
  readFileSync,
  type WriteStream,
  writeFileSync,
} from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError } from 'commander';
import { type CompileResult, compileGraph } from '../compiler/index.ts';
import { estimateRun, formatEstimate } from '../costs/estimate.ts';
import { DEFAULT_PRICES } from '../costs/prices.ts';
import { loadNodeRegistry } from '../nodes/registry.ts';
import { blobHashOf } from '../nodes/template.ts';
import { Cassette, type CassetteMode } from '../providers/cassette.ts';
import {
  builtinProfiles,
  listProviderProfiles,
  type ProfileOverride,
  profileOverrides,
} from '../providers/registry.ts';
import { secretsIn } from '../providers/secrets.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { type RunOptions, type RunResult, startRun } from '../runtime/engine.ts';
import type { RunEvent, RunMode } from '../runtime/events.ts';
import { formatProblem } from '../schema/problems.ts';
import {
  AmbiguousRunIdError,
  defaultDatabasePath,
  newRunId,
  openRunStore,
  type RunRecord,
  type RunStore,
} from '../store/index.ts';
import { addCuisineWorldCommands } from './cuisineworld.ts';
import { exportRun, parseExport } from './export.ts';
import { planFork } from './fork.ts';
import { readRunInputs, splitAssignment, UsageError } from './inputs.ts';
import { addOpenAgiCommands } from './openagi.ts';
import { createProgress } from './progress.ts';
import { parseProviders } from './provider-flags.ts';
import {
  callRecorder,
  documentTextOf,
  expertRecorder,
  loadImages,
  recordEvents,
  storeImages,
} from './record.ts';
import { learnProviderKeys, processRedactor, redactStream } from './redaction.ts';
import { formatDiff, formatRun, formatRunList } from './runs.ts';
import { attachStepper, parseBreakpoint } from './stepper.ts';

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
  estimate?: boolean;
  step?: boolean;
  break: string[];
}

interface ResumeFlags {
  input: string[];
  db?: string;
  simulate?: boolean;
  provider: string[];
  json?: boolean;
  events?: string;
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
      'add or redirect a provider, e.g. local=http://localhost:8000/v1 (append ,key=ENV_VAR if it needs a key, ,kind=huggingface for an expert-model endpoint)',
      collect,
      [],
    )
    .option('-q, --quiet', 'no progress display')
    .option(
      '--estimate',
      'print the worst-case calls, tokens and cost, and exit without calling anything',
    )
    .option(
      '--step',
      'debug in the terminal: start held, then n(ext), c(ontinue), p(rint), e(dit), b(reak), q(uit)',
    )
    .option(
      '--break <SPEC>',
      'stop at node:ID, round:N, event:TYPE, message:TEXT or from:INSTANCE (opens the terminal debugger)',
      collect,
      [],
    )
    .option('--db <FILE>', `the run store (default: ${defaultDatabasePath()})`)
    .action(async (file: string, flags: RunFlags) => {
      process.exitCode = await runCommand(file, flags);
    });

  executionOptions(program.command('resume'))
    .description('finish an interrupted run from its log; calls it already made are not paid again')
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '-i, --input <NAME=VALUE>',
      'an answer for a human node the run has not reached yet',
      collect,
      [],
    )
    .action(async (id: string, flags: ResumeFlags) => {
      process.exitCode = await resumeCommand(id, flags);
    });

  executionOptions(program.command('fork'))
    .description(
      'run again from a point of an earlier run, optionally with an edited message; unchanged calls come from its record',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option(
      '--edit <INSTANCE=TEXT>',
      'what a node instance says instead, e.g. "member#1@r2=It is a square"',
      collect,
      [],
    )
    .option(
      '--at <SEQ>',
      "keep the parent's events before this one (default: where the first edited instance started)",
    )
    .action(async (id: string, flags: ForkFlags) => {
      process.exitCode = await forkCommand(id, flags);
    });

  program
    .command('diff')
    .description('compare two runs: outputs, messages, votes and usage')
    .argument('<a>', 'a run id or prefix')
    .argument('<b>', 'another run id or prefix')
    .option('--db <FILE>', 'the run store')
    .action((a: string, b: string, flags: { db?: string }) => {
      const store = openStore(flags.db);
      try {
        const left = findRun(store, a);
        const right = findRun(store, b);
        process.stdout.write(
          formatDiff(left, store.events(left.id), right, store.events(right.id)),
        );
      } finally {
        store.close();
      }
    });

  program
    .command('prices')
    .description('show or edit the price table used for costs, estimates and money budgets')
    .option(
      '--set <MODEL=IN/OUT>',
      'US dollars per million input/output tokens, e.g. gpt-4o-mini=0.15/0.60',
      collect,
      [],
    )
    .option('--unset <MODEL>', 'go back to the built-in price (or none)', collect, [])
    .option('--db <FILE>', 'the run store')
    .action((flags: { set: string[]; unset: string[]; db?: string }) => {
      const store = openStore(flags.db);
      try {
        for (const assignment of flags.set) {
          const [model, value] = splitAssignment(assignment, '--set');
          const match = /^([\d.]+)\/([\d.]+)$/.exec(value);
          if (!match)
            throw new UsageError(
              `--set ${assignment}: give input/output dollars per million tokens, e.g. ${model}=0.15/0.60`,
            );
          store.setPrice(model, {
            inputPerMillion: Number(match[1]),
            outputPerMillion: Number(match[2]),
          });
        }
        for (const model of flags.unset) store.deletePrice(model);
        const own = store.priceTable();
        const table = { ...DEFAULT_PRICES, ...own };
        const rows = Object.entries(table).sort(([a], [b]) => a.localeCompare(b));
        process.stdout.write('model                          input $/M  output $/M\n');
        for (const [model, price] of rows) {
          process.stdout.write(
            `${model.padEnd(30)} ${price.inputPerMillion.toFixed(3).padStart(9)}  ${price.outputPerMillion.toFixed(3).padStart(10)}${model in own ? '  (yours)' : ''}\n`,
          );
        }
      } finally {
        store.close();
      }
    });

  program
    .command('providers')
    .description(
      'list provider profiles, or add one (a base URL and the variable holding its key; never a key)',
    )
    .option('--add <NAME=URL>', 'add or change an OpenAI-compatible provider')
    .option('--kind <KIND>', 'with --add: openai-compatible (default) or huggingface (experts)')
    .option('--key-env <VAR>', 'with --add: the environment variable that holds its key')
    .option('--concurrency <N>', 'with --add: calls at once')
    .option('--remove <NAME>', 'forget a provider you added')
    .option('--db <FILE>', 'the run store')
    .action(
      (flags: {
        add?: string;
        kind?: string;
        keyEnv?: string;
        concurrency?: string;
        remove?: string;
        db?: string;
      }) => {
        const store = openStore(flags.db);
        try {
          if (flags.add) {
            const [name, url] = splitAssignment(flags.add, '--add');
            try {
              const kind = flags.kind ?? builtinProfiles({})[name]?.kind ?? 'openai-compatible';
              if (kind !== 'openai-compatible' && kind !== 'huggingface') {
                throw new Error('--kind must be openai-compatible or huggingface');
              }
              store.saveProviderProfile({
                name,
                kind,
                baseUrl: url,
                ...(flags.keyEnv ? { apiKeyEnv: flags.keyEnv } : {}),
                ...(flags.concurrency ? { concurrency: Number(flags.concurrency) } : {}),
              });
            } catch (error) {
              throw new UsageError(`--add ${name}: ${(error as Error).message}`);
            }
          }
          if (flags.remove && !store.deleteProviderProfile(flags.remove)) {
            throw new UsageError(`no provider "${flags.remove}" was added`);
          }
          const stored = new Set(store.listProviderProfiles().map((p) => p.name));
          for (const p of listProviderProfiles({ overrides: storedOverrides(store) })) {
            const key = p.apiKeyEnv
              ? `key in ${p.apiKeyEnv}${process.env[p.apiKeyEnv] ? ' (set)' : ' (not set)'}`
              : 'no key';
            process.stdout.write(
              `${p.name.padEnd(12)} ${(p.baseUrl ?? 'in-process').padEnd(36)} ${key}${stored.has(p.name) ? '  (yours)' : ''}\n`,
            );
          }
        } finally {
          store.close();
        }
      },
    );

  program
    .command('runs')
    .description('list recorded runs, newest first')
    .option('-n, --limit <N>', 'how many', '20')
    .option('--db <FILE>', 'the run store')
    .action((flags: { limit: string; db?: string }) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError('--limit must be a positive whole number');
      const store = openStore(flags.db);
      try {
        store.markInterrupted();
        process.stdout.write(formatRunList(store.listRuns({ limit })));
      } finally {
        store.close();
      }
    });

  program
    .command('export')
    .description(
      'write a run as one self-contained JSON file (document, inputs, events, its calls)',
    )
    .argument('<run>', 'a run id or a unique prefix of one')
    .option('-o, --output <FILE>', 'where to write it (default: <run id>.run.json)')
    .option('--db <FILE>', 'the run store')
    .action(async (id: string, flags: { output?: string; db?: string }) => {
      const store = openStore(flags.db);
      try {
        const run = findRun(store, id);
        const target = flags.output ?? `${run.id}.run.json`;
        const data = processRedactor.apply(exportRun(store, run));
        try {
          writeFileSync(target, `${JSON.stringify(data)}\n`);
        } catch (error) {
          throw new UsageError(`cannot write ${target}: ${(error as Error).message}`);
        }
        process.stdout.write(
          `${target}: run ${run.id}, ${data.events.length} events, ${data.calls.entries.length} recorded calls\n`,
        );
      } finally {
        store.close();
      }
    });

  program
    .command('replay')
    .description('run an exported run again from its recorded calls, with no key and no network')
    .argument('<export>', 'a file written by `society export`')
    .option('--json', 'print one JSON object: status, outputs, usage, runId')
    .option('-q, --quiet', 'no progress display')
    .option('--events <FILE.ndjson>', 'write every run event as one JSON line')
    .option('--db <FILE>', 'the run store the replay is recorded in')
    .action(
      async (
        path: string,
        flags: { json?: boolean; quiet?: boolean; events?: string; db?: string },
      ) => {
        process.exitCode = await replayCommand(path, flags);
      },
    );

  program
    .command('show')
    .description('print a run: its transcript by round, votes, usage and outputs')
    .argument('<run>', 'a run id or a unique prefix of one')
    .option('--json', 'print the run record and its events as JSON')
    .option('--db <FILE>', 'the run store')
    .action((id: string, flags: { json?: boolean; db?: string }) => {
      const store = openStore(flags.db);
      try {
        store.markInterrupted();
        const run = findRun(store, id);
        const events = store.events(run.id);
        process.stdout.write(
          flags.json ? `${JSON.stringify({ run, events })}\n` : formatRun(run, events),
        );
      } finally {
        store.close();
      }
    });

  addOpenAgiCommands(program);
  addCuisineWorldCommands(program, (code) => {
    process.exitCode = code;
  });
  return program;
}

/** Options shared by the commands that execute a run again (resume, fork). */
function executionOptions(command: Command): Command {
  return command
    .option('--simulate', 'answer new calls with the simulated provider')
    .option(
      '--provider <NAME=URL>',
      'add or redirect a provider (append ,key=ENV_VAR, ,kind=huggingface)',
      collect,
      [],
    )
    .option('--json', 'print one JSON object: status, outputs, usage, runId')
    .option('--events <FILE.ndjson>', 'write the new events as JSON lines')
    .option('-q, --quiet', 'no progress display')
    .option('--db <FILE>', 'the run store');
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

  const providerOverrides = parseProviders(flags.provider);
  const breakpoints = flags.break.map(parseBreakpoint);
  const compiled = await compileFile(file, (doc) => applyModelOverrides(doc, flags.model));
  if (!compiled.ok) throw problemsExit(file, compiled.problems);
  const blobs = new BlobStore();
  const { inputs, humanAnswers } = readRunInputs(flags.input, compiled.plan, blobs);
  const store = openStore(flags.db);
  try {
    const prices = { ...DEFAULT_PRICES, ...store.priceTable() };
    if (flags.estimate) {
      const estimate = estimateRun(compiled.plan, prices, { inputs, imageTokens: IMAGE_TOKENS });
      process.stdout.write(`${formatEstimate(estimate)}\n`);
      process.stdout.write(
        `(worst case before any call: every round runs, every answer uses its max tokens; images count ${IMAGE_TOKENS} tokens)\n`,
      );
      return EXIT.ok;
    }
    store.markInterrupted();
    const cassette = await openCassette(flags);
    const runId = newRunId();
    store.createRun({
      id: runId,
      document: compiled.doc,
      documentText: documentTextOf(compiled),
      compilerVersion: compiled.machines.compilerVersion,
      mode: cassette?.mode ?? (flags.simulate ? 'simulated' : 'live'),
      inputs,
    });
    storeImages(store, blobs, inputs);
    store.saveGraph(compiled.doc, documentTextOf(compiled));
    const result = await execute(compiled, store, flags, {
      runId,
      inputs,
      humanAnswers,
      blobs,
      prices,
      simulate: flags.simulate === true,
      ...(cassette ? { cassette: { cassette: cassette.cassette, mode: cassette.mode } } : {}),
      providerOverrides: { ...storedOverrides(store), ...providerOverrides },
      breakpoints,
      startPaused: flags.step === true,
    });
    if (cassette && cassette.mode !== 'replay')
      await cassette.cassette.save(cassette.path, processRedactor);
    printResult(result.result, result.mode, flags.json === true);
    return result.result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}

/** Images are billed by size; a worst-case figure for a large image at high detail. */
const IMAGE_TOKENS = 1105;

/** Runs a started-or-resumed run with progress, event files, the store record and Ctrl-C. */
async function execute(
  compiled: Extract<CompileResult, { ok: true }>,
  store: RunStore,
  flags: Pick<RunFlags, 'quiet' | 'events'>,
  options: Omit<RunOptions, 'registry'> & { runId: string },
  prior: RunEvent[] = [],
): Promise<{ result: RunResult; mode: RunMode }> {
  const debugging = options.startPaused === true || (options.breakpoints?.length ?? 0) > 0;
  // The debugger prompts on the terminal, so progress is plain lines then.
  const progress = flags.quiet
    ? undefined
    : createProgress(process.stderr, { live: process.stderr.isTTY === true && !debugging });
  const events = flags.events ? openEvents(flags.events) : undefined;
  const run = startRun(compiled, {
    registry: await loadNodeRegistry(),
    ...options,
    redactor: store.redactor,
    onModelCall: callRecorder(store, options.runId),
    onExpertCall: expertRecorder(store, options.runId),
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
  const finish = recordEvents(
    store,
    run,
    (event) => {
      progress?.onEvent(event);
      events?.write(`${JSON.stringify(event)}\n`);
    },
    prior,
  );
  if (debugging) attachStepper(run);

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
  finish(result);
  if (events) await new Promise((resolve) => events.end(resolve));
  return { result, mode: run.mode };
}

/** `society resume RUN_ID`: finishes an interrupted run from its log and its own call record. */
async function resumeCommand(id: string, flags: ResumeFlags): Promise<number> {
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const run = findRun(store, id);
    if (run.status === 'running') {
      throw new UsageError(
        `run ${run.id} is still running in another process; wait for it or stop it first`,
      );
    }
    if (run.status !== 'interrupted') {
      throw new UsageError(
        `run ${run.id} has already ended (${run.status}); only an interrupted run can be resumed`,
      );
    }
    const compiled = await compileGraph(run.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${run.id}`, compiled.problems);
    if (compiled.machines.compilerVersion !== run.compilerVersion) {
      throw new UsageError(
        `run ${run.id} was made by compiler version ${run.compilerVersion}; this build has ${compiled.machines.compilerVersion} and cannot resume it`,
      );
    }
    const blobs = new BlobStore();
    const missing = loadImages(store, blobs, run.inputs);
    if (missing.length)
      throw new UsageError(`run ${run.id}: the store lacks the image for ${missing.join(', ')}`);
    const { humanAnswers } = readRunInputs(flags.input, compiled.plan, blobs);
    const record = Cassette.fromJSON(store.callRecord(run.id), `run ${run.id}`);
    const logged = store.events(run.id);
    store.reopenRun(run.id);
    process.stderr.write(
      `society: resuming run ${run.id} after event ${logged.at(-1)?.seq ?? 0}; ${record.size} answered calls come from its record\n`,
    );
    const { result, mode } = await execute(compiled, store, flags, {
      runId: run.id,
      inputs: run.inputs,
      humanAnswers,
      blobs,
      prices: { ...DEFAULT_PRICES, ...store.priceTable() },
      simulate: flags.simulate === true || run.mode === 'simulated',
      providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
      cassette: { cassette: record, mode: 'replay-then-live' },
      continueFrom: logged,
    });
    printResult(result, mode, flags.json === true);
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}

/** `society replay EXPORT`: the export's document and inputs, answered strictly by its calls. */
async function replayCommand(
  path: string,
  flags: { json?: boolean; quiet?: boolean; events?: string; db?: string },
): Promise<number> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let data: ReturnType<typeof parseExport>;
  try {
    data = parseExport(text, path);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const compiled = await compileGraph(data.run.documentText, await loadNodeRegistry());
  if (!compiled.ok) throw problemsExit(path, compiled.problems);
  const blobs = new BlobStore();
  for (const [hash, blob] of Object.entries(data.blobs)) {
    const ref = blobs.put(Buffer.from(blob.base64, 'base64'), blob.mime);
    if (blobHashOf(ref) !== hash)
      throw new UsageError(`${path}: blob ${hash.slice(0, 12)}… does not match its bytes`);
  }
  const answers = Object.fromEntries(
    data.events.flatMap((e) =>
      e.type === 'human.response'
        ? [[(e as { name: string }).name, (e as { answer: string }).answer]]
        : [],
    ),
  );
  const store = openStore(flags.db);
  try {
    const runId = newRunId();
    store.createRun({
      id: runId,
      document: compiled.doc,
      documentText: data.run.documentText,
      compilerVersion: compiled.machines.compilerVersion,
      mode: 'replay',
      inputs: data.run.inputs,
    });
    storeImages(store, blobs, data.run.inputs);
    const { result, mode } = await execute(compiled, store, flags, {
      runId,
      inputs: data.run.inputs,
      humanAnswers: answers,
      blobs,
      cassette: { cassette: Cassette.fromJSON(data.calls, path), mode: 'replay' },
    });
    printResult(result, mode, flags.json === true);
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}

interface ForkFlags {
  at?: string;
  edit: string[];
  db?: string;
  simulate?: boolean;
  provider: string[];
  json?: boolean;
  events?: string;
  quiet?: boolean;
}

/**
 * `society fork RUN --edit INSTANCE=TEXT` / `--at SEQ`: a new run that keeps the parent's
 * events before the fork point, answers every unchanged call from the parent's record, and
 * goes live only where the edit changes what is asked.
 */
async function forkCommand(id: string, flags: ForkFlags): Promise<number> {
  const store = openStore(flags.db);
  try {
    const parent = findRun(store, id);
    const edits: Record<string, string> = {};
    for (const assignment of flags.edit) {
      const [instance, text] = splitAssignment(assignment, '--edit');
      edits[instance] = text;
    }
    const at = flags.at === undefined ? undefined : Number(flags.at);
    const compiled = await compileGraph(parent.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${parent.id}`, compiled.problems);
    const plan = planFork(store, parent, compiled, { edits, ...(at === undefined ? {} : { at }) });
    const runId = newRunId();
    store.createRun({ id: runId, ...plan.record });
    process.stderr.write(`society: run ${runId} forks ${parent.id} after event ${plan.at - 1}\n`);
    const { result, mode } = await execute(
      compiled,
      store,
      flags,
      {
        runId,
        ...plan.options,
        prices: { ...DEFAULT_PRICES, ...store.priceTable() },
        simulate: flags.simulate === true || plan.simulated,
        providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
      },
      plan.kept,
    );
    printResult(result, mode, flags.json === true);
    return result.status === 'succeeded' ? EXIT.ok : EXIT.runFailed;
  } finally {
    store.close();
  }
}

/** Provider profiles the user added (`society providers --add`), as overrides. */
function storedOverrides(store: RunStore): Record<string, ProfileOverride> {
  return profileOverrides(store.listProviderProfiles());
}

function openStore(path: string | undefined): RunStore {
  const file = path ?? defaultDatabasePath();
  let store: RunStore;
  try {
    store = openRunStore(file, { redactor: processRedactor });
  } catch (error) {
    throw new UsageError(`cannot open the run store ${file}: ${(error as Error).message}`);
  }
  // The keys of providers added with `society providers --add` are the process's to hide too.
  learnProviderKeys(store.listProviderProfiles());
  return store;
}

function findRun(store: RunStore, id: string): RunRecord {
  try {
    const run = store.getRun(id);
    if (!run) throw new UsageError(`no run "${id}" in ${store.path} (see \`society runs\`)`);
    return run;
  } catch (error) {
    if (error instanceof AmbiguousRunIdError) {
      throw new UsageError(
        `"${id}" matches several runs (${error.matches.join(', ')}); give more of the id`,
      );
    }
    throw error;
  }
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
    let text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    // A large structured value (a plan with its graph) would bury the rest of the output.
    if (typeof value !== 'string' && text.length > 1200) {
      text = `${JSON.stringify(value).slice(0, 600)}… (${text.length.toLocaleString('en-US')} characters; --json prints it whole)`;
    }
    process.stdout.write(`${name}: ${text.includes('\n') ? `\n${text}` : text}\n`);
  }
  const { calls, totalTokens, expertCalls } = result.usage;
  const label = result.simulated
    ? ' · simulated answers'
    : mode === 'replay'
      ? ' · replayed from cassette'
      : '';
  process.stderr.write(
    `${result.status} · ${calls} calls · ${totalTokens.toLocaleString('en-US')} tokens${expertCalls ? ` · ${expertCalls} expert calls` : ''}${label}\n`,
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
  // Whatever a command prints, and whatever goes wrong, the terminal never shows a key.
  processRedactor.add(secretsIn(process.env));
  const restore = [redactStream(process.stdout), redactStream(process.stderr)];
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
  } finally {
    for (const undo of restore) undo();
  }
}
