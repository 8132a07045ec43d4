/**
 * Progress for `society run`. On a terminal: a live status block (nodes running, round k of n,
 * calls and tokens so far) redrawn in place. Elsewhere (pipes, CI): one plain line per event
 * worth reading. Both go to stderr so stdout stays clean for `--json`.
 */
import { createLogUpdate } from 'log-update';
import pc from 'picocolors';
import { analyticsReportOf } from '../node-sdk/reported.ts';
import { tallyOf } from '../node-sdk/tally.ts';
import type { RunEvent } from '../runtime/events.ts';
import { terminalText } from '../terminal/terminal-text.ts';
import type { ReportLines } from './report-lines.ts';

export interface ProgressView {
  onEvent(event: RunEvent): void;
  /** Hides the live block while something else (a prompt) uses the terminal. */
  suspend(): void;
  /** Shows it again. */
  resume(): void;
  stop(): void;
}

export function createProgress(
  stream: NodeJS.WriteStream,
  options: { live: boolean; reportLines?: ReportLines },
): ProgressView {
  return options.live ? new LiveProgress(stream) : new PlainProgress(stream, options.reportLines);
}

/** Model or document text on one line of at most `max` characters, its control sequences removed. */
const clip = (text: string, max: number) => {
  const line = terminalText(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** Copy numbers as ranges: 0,1,2,5,7,8 → `0–2,5,7–8`. */
function copyRanges(numbers: number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * Lines that differ only in their first copy number (`artists#3/talk round 2 of 3`) as one
 * (`artists#0–25/talk round 2 of 3`), so a replicated loop's 26 copies take one line, not 26.
 * Copies that are elsewhere (another round) keep a line of their own; order is first seen.
 */
export function collapseCopies(lines: readonly string[]): string[] {
  const groups = new Map<string, { line: string; copies: number[] }>();
  for (const line of lines) {
    const copy = /#(\d+)/.exec(line);
    const key = copy
      ? `${line.slice(0, copy.index)}#\u0000${line.slice(copy.index + copy[0].length)}`
      : line;
    const group = groups.get(key) ?? { line, copies: [] };
    if (copy) group.copies.push(Number(copy[1]));
    groups.set(key, group);
  }
  return [...groups].map(([key, { line, copies }]) =>
    new Set(copies).size > 1 ? key.replace('\u0000', copyRanges(copies)) : line,
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

class PlainProgress implements ProgressView {
  readonly #out: NodeJS.WriteStream;
  readonly #reportLines: ReportLines | undefined;
  #start = Date.now();
  constructor(out: NodeJS.WriteStream, reportLines?: ReportLines) {
    this.#out = out;
    this.#reportLines = reportLines;
  }
  onEvent(e: RunEvent): void {
    const own = this.#reportLines?.(e);
    const line = own === null ? undefined : (own ?? this.#line(e));
    // Names, errors and answers in a line come from the document and its models.
    if (line) this.#out.write(`[${seconds(e.time - this.#start)}] ${terminalText(line)}\n`);
  }
  #line(e: RunEvent): string | undefined {
    switch (e.type) {
      case 'run.started':
        this.#start = e.time;
        return `run ${e.runId} started: ${e.graph} (${e.mode})`;
      case 'round.started':
        return `${e.loop}: round ${e.round} of ${e.maxRounds}`;
      case 'round.finished':
        return e.stop ? `${e.loop}: stopping after round ${e.round}: ${e.stop}` : undefined;
      case 'message':
        return `${e.from}${e.to.length ? ` → ${e.to.join(', ')}` : ''}: ${clip(e.text, 160)}`;
      case 'report': {
        const tally = tallyOf(e);
        if (tally)
          return `${e.instance}: vote (${tally.rule}) winner ${tally.winner === null ? 'none' : `"${tally.winner}"`} from ${tally.totals.valid}/${tally.totals.ballots} valid ballots`;
        // Series points and interactions come by the hundred: the Analytics tab and
        // `society show --series/--heatmap` show them, not a line each here.
        if (analyticsReportOf(e)) return undefined;
        return `${e.instance}: ${e.kind} ${clip(JSON.stringify(e.data) ?? '', 160)}`;
      }
      case 'tool.call':
        return `${e.instance} calls ${e.source} ${e.tool}(${clip(e.arguments, 120)})`;
      case 'tool.result':
        return `${e.instance} ← ${e.tool}${e.isError ? ' (error)' : ''}${e.simulated ? ' [simulated]' : e.from === 'cassette' ? ' (recorded)' : ''} in ${e.durationMs} ms${e.edited ? ` (result edited by ${e.editedBy?.person ?? 'a person'})` : ''}: ${clip(e.result, 160)}`;
      case 'tool.error':
        return `${e.instance}: ${e.tool ? `${e.source} ${e.tool} failed: ` : ''}${e.error}`;
      case 'model.retry':
        return `${e.node}: retrying after ${e.error} (attempt ${e.attempt + 1} in ${e.delayMs} ms)`;
      case 'node.failed':
        return `${e.instance} failed: ${e.error}`;
      case 'node.skipped':
        return `${e.instance} skipped: ${e.from} not taken (${e.reason})`;
      case 'paused':
        return `paused (${e.reason}) at ${describeCheckpoint(e.at)}`;
      case 'resumed':
        return 'resumed';
      case 'human.request':
        return `${e.instance} waits for a person: ${clip(e.prompt, 160)}`;
      case 'human.response':
        // A person's own answer shows as their message; an example is said to be one.
        return e.fromExample
          ? `${e.instance}: no one to ask; answered with the document's example: ${clip(e.answer, 120)}`
          : undefined;
      case 'run.finished':
        return `run ${e.status}: ${e.usage.calls} call${e.usage.calls === 1 ? '' : 's'}, ${e.usage.totalTokens} tokens${e.usage.expertCalls ? `, ${e.usage.expertCalls} expert call${e.usage.expertCalls === 1 ? '' : 's'}` : ''}${e.error ? ` (${e.error})` : ''}`;
      default:
        return undefined;
    }
  }
  suspend(): void {}
  resume(): void {}
  stop(): void {}
}

class LiveProgress implements ProgressView {
  readonly #render: ReturnType<typeof createLogUpdate>;
  readonly #running = new Set<string>();
  readonly #rounds = new Map<string, string>();
  #calls = 0;
  #tokens = 0;
  #done = 0;
  #skipped = 0;
  #start = Date.now();
  #last = '';
  #status = 'running';
  #timer: NodeJS.Timeout | undefined;
  #suspended = false;

  constructor(out: NodeJS.WriteStream) {
    this.#render = createLogUpdate(out);
    this.#timer = setInterval(() => this.#draw(), 100);
    this.#timer.unref();
  }

  onEvent(e: RunEvent): void {
    switch (e.type) {
      case 'run.started':
        this.#start = e.time;
        break;
      case 'node.started':
        this.#running.add(e.instance);
        break;
      case 'node.finished':
      case 'node.failed':
        this.#running.delete(e.instance);
        this.#done++;
        break;
      case 'node.skipped':
        this.#skipped++;
        break;
      case 'round.started':
        this.#rounds.set(e.loop, `round ${e.round} of ${e.maxRounds}`);
        break;
      case 'model.response':
        this.#calls++;
        this.#tokens += e.promptTokens + e.completionTokens;
        break;
      case 'message':
        this.#last = `${e.from}: ${e.text}`;
        break;
      case 'tool.call':
        this.#last = `${e.instance} calls ${e.tool}`;
        break;
      case 'paused':
        this.#status = `paused (${e.reason}) at ${describeCheckpoint(e.at)}`;
        break;
      case 'resumed':
        this.#status = 'running';
        break;
      default:
        break;
    }
  }

  #draw(): void {
    if (this.#suspended) return;
    const width = Math.max(40, (process.stderr.columns ?? 100) - 2);
    // Copies of a replicated group are shown together (`artists#0–25/talk round 2 of 3`).
    const running = collapseCopies([...this.#running]);
    const rounds = terminalText(
      collapseCopies([...this.#rounds].map(([loop, r]) => `${loop} ${r}`)).join(', '),
    );
    const lines = [
      `${pc.cyan('●')} ${terminalText(this.#status)} ${pc.dim(seconds(Date.now() - this.#start))}  ${rounds}`,
      `  nodes: ${this.#done} done, ${this.#skipped ? `${this.#skipped} skipped, ` : ''}${this.#running.size} running${running.length ? `: ${clip(running.join(', '), width - 30)}` : ''}`,
      `  calls: ${this.#calls}  tokens: ${this.#tokens.toLocaleString('en-US')}`,
    ];
    if (this.#last) lines.push(pc.dim(`  ${clip(this.#last, width - 2)}`));
    this.#render(lines.join('\n'));
  }

  suspend(): void {
    this.#suspended = true;
    this.#render.clear();
    this.#render.done();
  }

  resume(): void {
    this.#suspended = false;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#render.clear();
  }
}

function describeCheckpoint(at: import('../runtime/events.ts').Checkpoint): string {
  switch (at.kind) {
    case 'node':
      return `node ${at.instance}`;
    case 'message':
      return `message from ${at.instance}`;
    case 'round':
      return `${at.loop} round ${at.round}`;
    case 'tool':
      return `${at.instance}'s call to ${at.tool}`;
    case 'tool-result':
      return `the result of ${at.instance}'s call to ${at.tool}`;
    default:
      return at satisfies never;
  }
}
