/**
 * Running a started, resumed, forked or replayed run in the terminal: progress, the events file,
 * the store record, the terminal debugger, questions to a person and Ctrl-C; then the result as
 * text or JSON.
 */

import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { CompileResult } from '../compiler/index.ts';
import { expertProviders } from '../experts/providers.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import { clip } from '../providers/text.ts';
import { interview } from '../runs/interview.ts';
import { callRecorder, expertRecorder, recordEvents, toolRecorder } from '../runs/record.ts';
import { type RunOptions, type RunResult, startRun } from '../runtime/engine.ts';
import type { RunEvent, RunMode } from '../runtime/events.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import type { ParamValue } from '../schema/params.ts';
import type { RunStore } from '../store/index.ts';
import { terminalText } from '../terminal/terminal-text.ts';
import { runMcpProfiles, runToolSources } from './mcp-servers.ts';
import { createProgress } from './progress.ts';
import { reportLines } from './report-lines.ts';
import { attachStepper } from './stepper.ts';

/** How the run shows itself: `--quiet` hides the progress, `--events` writes every event. */
export interface DisplayFlags {
  quiet?: boolean;
  events?: string;
}

/**
 * How this session's model calls were answered: sent to a model (`live`, of which `unpriced`
 * have no price in the run's table), or served from a record or cassette (`recorded`).
 */
export interface CallSources {
  live: number;
  unpriced: number;
  recorded: number;
}

/** What `printResult` says beside the result: the session's calls and the store it is in. */
export interface ResultContext {
  calls?: CallSources;
  /** The `--db` the run is stored in, for the command that continues it. */
  db?: string | undefined;
}

/** Runs a started-or-resumed run with progress, event files, the store record and Ctrl-C. */
export async function executeRun(
  compiled: Extract<CompileResult, { ok: true }>,
  store: RunStore,
  flags: DisplayFlags,
  options: Omit<RunOptions, 'registry' | 'experts'> & { runId: string },
  prior: RunEvent[] = [],
): Promise<{ result: RunResult; mode: RunMode; calls: CallSources }> {
  const debugging = options.startPaused === true || (options.breakpoints?.length ?? 0) > 0;
  // The debugger prompts on the terminal, so progress is plain lines then.
  const registry = await loadNodeRegistry();
  const progress = flags.quiet
    ? undefined
    : createProgress(process.stderr, {
        live: process.stderr.isTTY === true && !debugging,
        reportLines: reportLines(registry),
      });
  const events = flags.events ? openEvents(flags.events) : undefined;
  const run = startRun(compiled, {
    experts: expertProviders,
    // The user's MCP server profiles (a resume, fork or replay); `run` hands its --mcp ones.
    tools: runToolSources(runMcpProfiles(store)),
    registry,
    ...options,
    // The terminal debugger is who answers a tool that asks before it runs.
    toolApproval: { ...options.toolApproval, interactive: debugging },
    redactor: store.redactor,
    onModelCall: callRecorder(store, options.runId),
    onExpertCall: expertRecorder(store, options.runId),
    ...toolRecorder(store, options.runId),
    ...(process.stdin.isTTY
      ? {
          askHuman: async ({ name, prompt, example }: AskHumanRequest) => {
            progress?.suspend();
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            try {
              // The document's example is the default: Enter accepts it.
              const offer =
                example === undefined ? '' : `(Enter: ${clip(terminalText(example), 60)})\n`;
              // The question and its example are the document's: shown, never obeyed.
              const answer = await rl.question(terminalText(`\n${prompt}\n${offer}${name}> `));
              return answer === '' && example !== undefined ? example : answer;
            } finally {
              rl.close();
              progress?.resume();
            }
          },
        }
      : {}),
  });
  const calls: CallSources = { live: 0, unpriced: 0, recorded: 0 };
  let simulated = 0;
  const finish = recordEvents(
    store,
    run,
    (event) => {
      if (event.type === 'model.response') {
        if (event.source === 'live') {
          calls.live++;
          if (event.costUsd === undefined) calls.unpriced++;
        } else if (event.source === 'simulated') simulated++;
      }
      progress?.onEvent(event);
      events?.write(`${JSON.stringify(event)}\n`);
    },
    prior,
  );
  if (debugging) {
    // `ask` in the debugger: a side call in the member's context, answered as the run's calls
    // are (a pure replay has no answer for it in its cassette, so it is simulated, labelled).
    attachStepper(run, process.stderr, process.stdin, (member, at, question) =>
      interview(
        {
          runId: options.runId,
          events: run.events,
          doc: compiled.doc,
          store,
          blob: (hash) => run.blobs.get(hash),
        },
        member,
        at,
        question,
        { ...options, simulate: options.simulate === true || run.mode === 'replay' },
      ),
    );
  }

  // Ctrl-C or SIGTERM cancels the run, which is recorded as cancelled; a second one quits at once.
  let interrupts = 0;
  const onSigint = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write('\nsociety: cancelling the run (press Ctrl-C again to quit at once)\n');
      run.cancel();
    } else process.exit(signal === 'SIGTERM' ? 143 : 130);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const result = await run.result;
  process.off('SIGINT', onSigint);
  process.off('SIGTERM', onSigint);
  progress?.stop();
  finish(result);
  if (events) await new Promise((resolve) => events.end(resolve));
  // Answers from a record or cassette: those a resume regenerates are already in its log and
  // are not emitted again, so they are what the run counted and was not seen sent or simulated.
  calls.recorded = Math.max(0, result.usage.calls - calls.live - simulated);
  return { result, mode: run.mode, calls };
}

/**
 * The outputs on stdout (one JSON object with `json`), then on stderr the line that tells what
 * happened: status, run id, mode, calls, tokens and cost (see `summaryLine`), then the error
 * of a run that did not succeed with the command that continues it.
 */
export function printResult(
  result: RunResult,
  mode: RunMode,
  json: boolean,
  params: Readonly<Record<string, ParamValue>> = {},
  context: ResultContext = {},
): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify({
        status: result.status,
        outputs: result.outputs,
        usage: result.usage,
        runId: result.runId,
        mode,
        simulated: result.simulated,
        cost: costOf(result, mode, context.calls),
        ...(Object.keys(params).length ? { params } : {}),
        ...(result.error ? { error: result.error } : {}),
        ...(result.status === 'succeeded'
          ? {}
          : { continueWith: continueCommand(result, context) }),
      })}\n`,
    );
    return;
  }
  for (const [name, value] of Object.entries(result.outputs)) printOutput(name, value);
  process.stderr.write(`${summaryLine(result, mode, context.calls)}\n`);
  // A replay never calls a provider, so it has nothing to continue with: its error stands alone.
  const next = mode === 'replay' ? undefined : continueCommand(result, context);
  if (result.status === 'failed') {
    const error = terminalText(result.error ?? 'the run failed');
    process.stderr.write(`society: ${error}${next ? ` — fix the cause, then: ${next}` : ''}\n`);
  } else if (result.status === 'cancelled') {
    process.stderr.write(`society: cancelled${next ? ` — to go on from here: ${next}` : ''}\n`);
  }
}

/** `society resume RUN` (with the store it is in when not the default one). */
function continueCommand(result: RunResult, context: ResultContext): string {
  const db = context.db === undefined ? '' : ` --db ${shellWord(context.db)}`;
  return `society resume ${result.runId}${db}`;
}

/** A path as one shell word. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * What the run cost, as `printResult --json` reports it: US dollars of the calls sent to a
 * model at the run's price table, and what the figure leaves out — answers that cost nothing
 * (simulated, from a cassette or the run's own record) and calls to models without a price.
 */
export interface RunCost {
  usd: number;
  /** Calls sent to a model. */
  sentCalls: number;
  /** Of those, calls to a model with no price in the table (not in `usd`). */
  unpricedCalls: number;
  /** Calls answered from a cassette or a run's record: already paid, or never paid. */
  recordedCalls: number;
  simulated: boolean;
}

function costOf(result: RunResult, mode: RunMode, calls?: CallSources): RunCost {
  const simulated = result.simulated || mode === 'simulated';
  // Without the session's counts (a caller that did not run it here), every call is taken as
  // sent unless the mode says none was.
  const sources = calls ?? {
    live: mode === 'live' || mode === 'record' ? result.usage.calls : 0,
    unpriced: 0,
    recorded: mode === 'replay' ? result.usage.calls : 0,
  };
  return {
    usd: result.usage.costUsd,
    sentCalls: sources.live,
    unpricedCalls: sources.unpriced,
    recordedCalls: sources.recorded,
    simulated,
  };
}

/**
 * The line that tells what happened, e.g.
 * `succeeded · run 3f2a9c01d4e5b6a7 · live · 17 calls · 3,879 tokens · $0.0123`. The cost says
 * when it is nothing because nothing was sent (simulated answers, a replay, a run's record), how
 * many calls a resumed or forked run sent, and how many calls had no price.
 */
export function summaryLine(result: RunResult, mode: RunMode, calls?: CallSources): string {
  const { totalTokens, expertCalls } = result.usage;
  const cost = costOf(result, mode, calls);
  const parts = [
    result.status,
    `run ${result.runId}`,
    mode,
    `${result.usage.calls} call${result.usage.calls === 1 ? '' : 's'}`,
    `${totalTokens.toLocaleString('en-US')} tokens`,
    ...(expertCalls ? [`${expertCalls} expert call${expertCalls === 1 ? '' : 's'}`] : []),
    costText(cost, mode),
  ];
  return parts.join(' · ');
}

function costText(cost: RunCost, mode: RunMode): string {
  const usd = `$${cost.usd.toFixed(4)}`;
  const unpriced = cost.unpricedCalls
    ? ` + ${cost.unpricedCalls} call${cost.unpricedCalls === 1 ? '' : 's'} without a price (society prices)`
    : '';
  if (cost.sentCalls === 0) {
    // Nothing was sent: say where the answers came from instead of a price.
    const sources = [
      ...(mode === 'replay' ? ['replayed from cassette'] : []),
      ...(cost.recordedCalls > 0 && mode !== 'replay'
        ? [`${cost.recordedCalls} from the run's record`]
        : []),
      ...(cost.simulated ? ['simulated answers'] : []),
    ];
    return sources.length ? `$0 (${sources.join(', ')})` : '$0';
  }
  const simulated = cost.simulated ? ', some simulated' : '';
  if (cost.recordedCalls > 0)
    return `${usd}${unpriced} for ${cost.sentCalls} sent (${cost.recordedCalls} from the record${simulated})`;
  return `${usd}${unpriced}${cost.simulated ? ' (some answers simulated)' : ''}`;
}

function printOutput(name: string, value: unknown): void {
  const hash = blobHashOf(value);
  if (hash) {
    // Bytes are no use on a terminal: say what they are and how to get them.
    const mime = (value as { mime: string }).mime;
    process.stdout.write(
      `${name}: ${mime} ${hash.slice(0, 12)}… (--out DIR writes it to a file)\n`,
    );
    return;
  }
  const hashes = Array.isArray(value) ? value.map(blobHashOf) : [];
  if (hashes.length > 0 && hashes.every(Boolean)) {
    // A list of files (a renderer's views): one line, each file as above.
    const files = (value as Array<{ mime: string }>).map(
      (v, i) => `${v.mime} ${hashes[i]!.slice(0, 12)}…`,
    );
    process.stdout.write(
      `${name}: ${files.length} files: ${files.join(', ')} (--out DIR writes them to files)\n`,
    );
    return;
  }
  let text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  // A large structured value (a plan with its graph) would bury the rest of the output.
  if (typeof value !== 'string' && text.length > 1200) {
    text = `${JSON.stringify(value).slice(0, 600)}… (${text.length.toLocaleString('en-US')} characters; --json prints it whole)`;
  }
  // A model's answer or a document's string: printed, its control sequences never obeyed.
  text = terminalText(text);
  process.stdout.write(`${terminalText(name)}: ${text.includes('\n') ? `\n${text}` : text}\n`);
}

type AskHumanRequest = { name: string; prompt: string; example?: string };

function openEvents(path: string): WriteStream {
  const stream = createWriteStream(path);
  stream.on('error', (error) =>
    process.stderr.write(`society: cannot write events to ${path}: ${error.message}\n`),
  );
  return stream;
}
