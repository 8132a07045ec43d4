/**
 * Running a started, resumed, forked or replayed run in the terminal: progress, the events file,
 * the store record, the terminal debugger, questions to a person and Ctrl-C; then the result as
 * text or JSON.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { CompileResult } from '../compiler/index.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import { clip } from '../providers/text.ts';
import { type RunOptions, type RunResult, startRun } from '../runtime/engine.ts';
import type { RunEvent, RunMode } from '../runtime/events.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import type { ParamValue } from '../schema/params.ts';
import type { RunStore } from '../store/index.ts';
import { createProgress } from './progress.ts';
import { callRecorder, expertRecorder, recordEvents } from './record.ts';
import { attachStepper } from './stepper.ts';

/** How the run shows itself: `--quiet` hides the progress, `--events` writes every event. */
export interface DisplayFlags {
  quiet?: boolean;
  events?: string;
}

/** Runs a started-or-resumed run with progress, event files, the store record and Ctrl-C. */
export async function executeRun(
  compiled: Extract<CompileResult, { ok: true }>,
  store: RunStore,
  flags: DisplayFlags,
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
          askHuman: async ({ name, prompt, example }: AskHumanRequest) => {
            progress?.suspend();
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            try {
              // The document's example is the default: Enter accepts it.
              const offer = example === undefined ? '' : `(Enter: ${clip(example, 60)})\n`;
              const answer = await rl.question(`\n${prompt}\n${offer}${name}> `);
              return answer === '' && example !== undefined ? example : answer;
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

/** The outputs on stdout (one JSON object with `json`), the status line on stderr. */
export function printResult(
  result: RunResult,
  mode: RunMode,
  json: boolean,
  params: Readonly<Record<string, ParamValue>> = {},
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
        ...(Object.keys(params).length ? { params } : {}),
        ...(result.error ? { error: result.error } : {}),
      })}\n`,
    );
    return;
  }
  for (const [name, value] of Object.entries(result.outputs)) {
    const hash = blobHashOf(value);
    if (hash) {
      // Bytes are no use on a terminal: say what they are and how to get them.
      const mime = (value as { mime: string }).mime;
      process.stdout.write(
        `${name}: ${mime} ${hash.slice(0, 12)}… (--out DIR writes it to a file)\n`,
      );
      continue;
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
      continue;
    }
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

type AskHumanRequest = { name: string; prompt: string; example?: string };

function openEvents(path: string): WriteStream {
  const stream = createWriteStream(path);
  stream.on('error', (error) =>
    process.stderr.write(`society: cannot write events to ${path}: ${error.message}\n`),
  );
  return stream;
}
