/**
 * `society run --step`: a terminal debugger. The run starts held; each command waits until the
 * run is held again before it acts, so a script piped to stdin behaves like a person typing.
 *
 *   n [message|node|round|tool]  step to the next message (default), node start, round or
 *                            tool call (`n tool` at a tool call stops again once it returned)
 *   c                        continue to the next breakpoint or the end (a held tool call runs)
 *   p                        where the run is: held at, running, rounds, usage
 *   p INSTANCE               what that agent was sent last, message by message, with tokens
 *   e TEXT                   replace the held message before it is delivered; at a held tool
 *                            call, its arguments as JSON (checked against the tool's schema);
 *                            at a tool's result, the text the model reads instead
 *   d                        deny the held tool call: it never runs, the model reads why
 *   o PORT=VALUE             set the output of the node held before it starts (it will not run)
 *
 * Under `--replay` an edit changes every request after it, which the cassette cannot answer:
 * `e` and `o` say so at once and ask how the rest is answered — [s]imulated, [l]ive, or
 * [c]ancel the edit — before the edit is made.
 *   b [SPEC]                 add a breakpoint (or list them): node:ID round:N event:TYPE report:KIND
 *                            message:TEXT from:INSTANCE tool:NAME (tool:* before every call)
 *                            tool-result:NAME (after it returned, before the model reads it);
 *                            round:N holds once per round for every copy of a replicated loop,
 *                            round:N@LOOP#K for that copy only
 *                            A node on a branch not taken never starts: `b node:ID` on one
 *                            already skipped outside a loop is refused with why, and a node
 *                            breakpoint whose node is skipped is said not to hold; use
 *                            `b event:node.skipped` to stop at each skip.
 *   ask MEMBER[@ROUND] TEXT  ask a member a question in its own context at that point (its
 *                            call in that round, or its latest): a side call, recorded apart
 *                            from the run, that never changes it (`ask member#2@r3 why?`)
 *   q                        stop the run
 */
import { createInterface } from 'node:readline';
import { describeInterview, parseInterviewTarget } from '../runs/interview.ts';
import { agentContext } from '../runtime/agent-context.ts';
import type { Breakpoint, StepKind } from '../runtime/debugger.ts';
import type { Run } from '../runtime/engine.ts';
import type { Checkpoint, RunEvent, RunEventType } from '../runtime/events.ts';
import { resultEditor } from '../runtime/tool-holds.ts';
import type { InterviewRecord } from '../store/index.ts';
import { terminalText } from '../terminal/terminal-text.ts';
import { UsageError } from './errors.ts';

const EVENT_TYPES: RunEventType[] = [
  'run.started',
  'run.finished',
  'node.started',
  'node.finished',
  'node.failed',
  'node.skipped',
  'model.request',
  'model.delta',
  'model.response',
  'model.retry',
  'model.error',
  'tool.call',
  'tool.result',
  'tool.error',
  'message',
  'round.started',
  'round.finished',
  'report',
  'human.request',
  'human.response',
  'paused',
  'resumed',
  'error',
];

/**
 * Reads `node:ID`, `round:N`, `event:TYPE`, `report:KIND` (a report of that kind only: a vote's
 * `tally`, a node's own), `message:TEXT` or `from:INSTANCE`.
 */
export function parseBreakpoint(spec: string): Breakpoint {
  const colon = spec.indexOf(':');
  const kind = colon === -1 ? '' : spec.slice(0, colon);
  const value = spec.slice(colon + 1).trim();
  if (!value)
    throw new UsageError(`breakpoint "${spec}" needs a value, e.g. node:leader or round:2`);
  switch (kind) {
    case 'node':
      return { node: value };
    case 'round': {
      // `round:2@artists#3/talk`: that copy's loop only.
      const at = value.indexOf('@');
      const number = at === -1 ? value : value.slice(0, at);
      const loop = at === -1 ? '' : value.slice(at + 1).trim();
      const round = Number(number);
      if (!Number.isInteger(round) || round < 1)
        throw new UsageError(`round:${number} must be a round number from 1`);
      return loop ? { round, loop } : { round };
    }
    case 'event':
      if (!EVENT_TYPES.includes(value as RunEventType)) {
        throw new UsageError(`event:${value} is not an event kind (${EVENT_TYPES.join(', ')})`);
      }
      return { event: value as RunEventType };
    case 'report':
      return { event: 'report', report: value };
    case 'message':
      return { message: { contains: value } };
    case 'from':
      return { message: { from: value } };
    case 'tool':
      return { tool: value };
    case 'tool-result':
      return { toolResult: value };
    default:
      throw new UsageError(
        `unknown breakpoint "${spec}": use node:ID, round:N, event:TYPE, report:KIND, message:TEXT, from:INSTANCE, tool:NAME or tool-result:NAME`,
      );
  }
}

export function describeBreakpoint(b: Breakpoint): string {
  if ('node' in b) return `node:${b.node}`;
  if ('round' in b) return `round:${b.round}${b.loop ? `@${b.loop}` : ''}`;
  if ('event' in b) return b.report !== undefined ? `report:${b.report}` : `event:${b.event}`;
  if ('tool' in b) return `tool:${b.tool}`;
  if ('toolResult' in b) return `tool-result:${b.toolResult}`;
  return b.message.from ? `from:${b.message.from}` : `message:${b.message.contains}`;
}

export function describeCheckpoint(at: Checkpoint): string {
  switch (at.kind) {
    case 'node':
      return `before node ${at.instance} starts`;
    case 'message':
      return `before ${at.instance} sends: ${at.text}`;
    case 'round':
      return `before ${at.loop} round ${at.round}`;
    case 'tool':
      return `before ${at.instance} calls ${at.source}/${at.tool} ${at.arguments}${at.ask ? ' (the tool asks first: c runs it, e JSON edits its arguments, d denies it)' : ''}`;
    case 'tool-result':
      return `after ${at.instance}'s call to ${at.source}/${at.tool} ${at.arguments} returned${at.isError ? ' an error' : ''}: ${at.result} (c sends it to the model, e TEXT sends this text instead)`;
    default:
      return at satisfies never;
  }
}

/** Puts a question to a member in its context at a point and records it as a side call. */
export type AskMember = (
  member: string,
  at: string | undefined,
  question: string,
) => Promise<InterviewRecord>;

/**
 * Attaches the stepper to a run; it reads commands from `input` (stdin) until the run ends.
 * `ask`, when given, answers the `ask` command.
 */
export function attachStepper(
  run: Run,
  out: NodeJS.WritableStream = process.stderr,
  input: NodeJS.ReadableStream = process.stdin,
  ask?: AskMember,
): void {
  // What the debugger shows (messages, answers, contexts) comes from models and documents.
  const say = (text: string) => out.write(`${terminalText(text)}\n`);
  let ended = false;
  let wake: (() => void) | undefined;
  /** Node breakpoints already said not to hold (a node is skipped once per copy and round). */
  const toldSkipped = new Set<string>();
  run.subscribe((event) => {
    if (
      event.type === 'node.skipped' &&
      event.round === undefined &&
      !toldSkipped.has(event.node)
    ) {
      if (run.breakpoints.some((b) => 'node' in b && b.node === event.node)) {
        toldSkipped.add(event.node);
        say(`breakpoint node:${event.node} will not hold: ${skipNote(event)} and never starts`);
      }
    }
    if (event.type === 'paused') {
      const why =
        event.reason === 'breakpoint'
          ? 'breakpoint'
          : event.reason === 'step'
            ? 'step'
            : event.reason === 'ask'
              ? 'approve'
              : 'paused';
      say(`⏸ ${why}: ${describeCheckpoint(event.at)}`);
      out.write('debug> ');
    }
    if (event.type === 'run.finished') ended = true;
    wake?.();
  });
  void run.result.then(() => {
    ended = true;
    wake?.();
  });
  const held = () => ended || (run.paused && run.waitingAt.length > 0);
  const untilHeld = () =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (held()) {
          wake = undefined;
          resolve();
        }
      };
      wake = check;
      check();
    });

  say(
    'stepping: n [message|node|round|tool], c, p [INSTANCE], e TEXT, d, o PORT=VALUE, b [SPEC], ask MEMBER@ROUND TEXT, q — h for help',
  );
  /** An edit under a replay, waiting for how the calls after it are answered. */
  let pending: { edit: () => void; what: string } | undefined;
  /** Makes an edit now, or, under a pure replay, first asks how the rest is answered. */
  const editing = (what: string, edit: () => void) => {
    if (run.mode !== 'replay') {
      edit();
      return;
    }
    pending = { edit, what };
    say(BEYOND_CASSETTE);
    out.write('[s/l/c]> ');
  };
  const rl = createInterface({ input, terminal: false });
  void (async () => {
    for await (const raw of rl) {
      const line = raw.trim();
      if (!line) continue;
      await untilHeld();
      if (ended) break;
      if (pending) {
        const choice = line.toLowerCase();
        if (choice === 's' || choice === 'l') {
          run.answerBeyondCassette(choice === 's' ? 'simulated' : 'live');
          say(
            `the calls the cassette lacks are now ${choice === 's' ? 'simulated (labelled as such)' : 'live (they cost money)'}; the run is ${run.mode}`,
          );
          pending.edit();
        } else if (choice === 'c') say(`edit cancelled: ${pending.what} stays as it was`);
        else {
          say('answer s (simulate the rest), l (live) or c (cancel the edit)');
          out.write('[s/l/c]> ');
          continue;
        }
        pending = undefined;
        out.write('debug> ');
        continue;
      }
      const [command = '', ...rest] = line.split(/\s+/);
      const arg = line.slice(command.length).trim();
      try {
        switch (command) {
          case 'n':
          case 'next': {
            const kind = (rest[0] ?? 'message') as StepKind;
            if (!['message', 'node', 'round', 'tool'].includes(kind))
              throw new UsageError('next takes message, node, round or tool');
            run.step(kind);
            break;
          }
          case 'c':
          case 'continue':
            run.resume();
            break;
          case 'p':
          case 'print':
            say(arg ? contextOf(run.events, arg) : stateOf(run));
            out.write('debug> ');
            break;
          case 'e':
          case 'edit': {
            const returned = run.waitingAt.find((at) => at.kind === 'tool-result');
            if (returned) {
              if (!arg) throw new UsageError('edit needs the result the model reads instead');
              editing(`the result of ${returned.instance}'s call to ${returned.tool}`, () => {
                run.editToolResult(returned.callId, arg, resultEditor('terminal'));
                say(`${returned.instance} will read from ${returned.tool}: ${arg}`);
              });
              if (!pending) out.write('debug> ');
              break;
            }
            const tool = run.waitingAt.find((at) => at.kind === 'tool');
            if (tool) {
              if (!arg) throw new UsageError('edit needs the arguments as JSON, e.g. e {"n": 2}');
              editing(`${tool.instance}'s call to ${tool.tool}`, () => {
                run.editToolCall(tool.callId, arg);
                say(`${tool.tool} will be called with ${arg}`);
              });
              if (!pending) out.write('debug> ');
              break;
            }
            const message = run.waitingAt.find((at) => at.kind === 'message');
            if (!message)
              throw new UsageError('no message is waiting: step to one with "n message"');
            if (!arg) throw new UsageError('edit needs the new text');
            editing(`${message.instance}'s message`, () => {
              run.editMessage(message.instance, arg);
              say(`${message.instance} will send: ${arg}`);
            });
            if (!pending) out.write('debug> ');
            break;
          }
          case 'd':
          case 'deny': {
            const tool = run.waitingAt.find((at) => at.kind === 'tool');
            if (!tool && run.waitingAt.some((at) => at.kind === 'tool-result'))
              throw new UsageError('the tool already ran: e TEXT gives the model another result');
            if (!tool) throw new UsageError('no tool call is waiting: step to one with "n tool"');
            run.denyToolCall(tool.callId);
            say(`${tool.tool} will not run; ${tool.instance} reads that it was denied`);
            run.resume();
            break;
          }
          case 'o':
          case 'output': {
            const node = run.waitingAt.find((at) => at.kind === 'node');
            if (!node)
              throw new UsageError('no node is waiting to start: step to one with "n node"');
            const eq = arg.indexOf('=');
            if (eq <= 0)
              throw new UsageError('output takes PORT=VALUE, e.g. o text=It is a square');
            const raw = arg.slice(eq + 1);
            let value: unknown = raw;
            try {
              value = JSON.parse(raw);
            } catch {
              // Not JSON: the text itself.
            }
            editing(`${node.instance}`, () => {
              run.overrideOutput(node.instance, { [arg.slice(0, eq)]: value });
              say(
                `${node.instance} will not run; its ${arg.slice(0, eq)} is ${JSON.stringify(value)}`,
              );
            });
            if (!pending) out.write('debug> ');
            break;
          }
          case 'b':
          case 'break':
            if (arg) {
              const breakpoint = parseBreakpoint(arg);
              const skip =
                'node' in breakpoint ? skippedFor(run.events, breakpoint.node) : undefined;
              // Outside a loop a skipped node never starts in this run: a breakpoint before it
              // would never hold. In a loop it may still start in a later round.
              if (skip && skip.round === undefined) {
                say(
                  `not added: ${skipNote(skip)} and will not start in this run; b event:node.skipped stops at each skip`,
                );
                out.write('debug> ');
                break;
              }
              if (skip)
                say(
                  `note: ${skipNote(skip)} in round ${skip.round}; the breakpoint holds if it starts in a later round`,
                );
              run.setBreakpoints([...run.breakpoints, breakpoint]);
            }
            say(`breakpoints: ${run.breakpoints.map(describeBreakpoint).join(', ') || 'none'}`);
            out.write('debug> ');
            break;
          case 'ask': {
            if (!ask) throw new UsageError('ask is not available here');
            const spec = rest[0] ?? '';
            const question = unquote(arg.slice(spec.length));
            if (!spec || !question)
              throw new UsageError('ask takes a member and a question, e.g. ask member#2@r3 why?');
            const { member, at } = parseInterviewTarget(spec);
            say(describeInterview(await ask(member, at, question)));
            out.write('debug> ');
            break;
          }
          case 'q':
          case 'quit':
            run.cancel();
            break;
          case 'h':
          case 'help':
            say(
              'n [message|node|round|tool]  step · c continue · p [INSTANCE] print · e TEXT edit the held message (at a tool call: its arguments as JSON; at a tool result: what the model reads) · d deny the held tool call · o PORT=VALUE give the held node an output · b [SPEC] breakpoints · ask MEMBER[@ROUND] TEXT ask a member in its context then (a side call that never changes the run) · q stop',
            );
            out.write('debug> ');
            break;
          default:
            say(`unknown command "${command}" (h for help)`);
            out.write('debug> ');
        }
      } catch (error) {
        say(`${(error as Error).message}`);
        out.write('debug> ');
      }
    }
    // No more commands (end of input): let the run finish.
    if (!ended) run.resume();
  })();
  void run.result.finally(() => rl.close());
}

/** A question typed in quotes is the text inside them. */
function unquote(text: string): string {
  const t = text.trim();
  return t.length >= 2 && /^(["']).*\1$/s.test(t) ? t.slice(1, -1).trim() : t;
}

/** Said at `e` or `o` under `--replay`, before the edit is made. */
const BEYOND_CASSETTE = [
  'the calls after this edit are not in the cassette (their requests change), so the replay would fail there.',
  'answer them: [s]imulated, [l]ive (calls the models; needs their keys and costs money), or [c]ancel the edit?',
  '(to edit from the start: rerun with --replay-then-simulated CASSETTE or --replay-then-live CASSETTE)',
].join('\n');

type SkipEvent = Extract<RunEvent, { type: 'node.skipped' }>;

/** The last skip of a node (by id or instance), if it was skipped. */
function skippedFor(events: readonly RunEvent[], id: string): SkipEvent | undefined {
  return events.findLast(
    (e): e is SkipEvent => e.type === 'node.skipped' && (e.node === id || e.instance === id),
  );
}

function skipNote(e: SkipEvent): string {
  return `${e.instance} was skipped (${e.from} not taken: ${e.reason})`;
}

function stateOf(run: Run): string {
  const started = new Set<string>();
  const skipped: string[] = [];
  const rounds = new Map<string, string>();
  for (const e of run.events) {
    if (e.type === 'node.skipped') skipped.push(e.instance);
    if (e.type === 'node.started') started.add(e.instance);
    if (e.type === 'node.finished' || e.type === 'node.failed') started.delete(e.instance);
    if (e.type === 'round.started') rounds.set(e.loop, `round ${e.round} of ${e.maxRounds}`);
  }
  const u = run.usage;
  return [
    `held: ${run.waitingAt.map(describeCheckpoint).join('; ') || 'nowhere'}`,
    `running: ${[...started].join(', ') || 'nothing'}`,
    ...(skipped.length ? [`skipped: ${skipped.join(', ')}`] : []),
    ...[...rounds].map(([loop, r]) => `${loop}: ${r}`),
    `usage: ${u.calls} call${u.calls === 1 ? '' : 's'}, ${u.totalTokens} tokens, $${u.costUsd.toFixed(4)}`,
    `breakpoints: ${run.breakpoints.map(describeBreakpoint).join(', ') || 'none'}`,
  ].join('\n');
}

/** Exactly what an agent instance was sent in its last call, with token counts. */
function contextOf(events: RunEvent[], instance: string): string {
  const { call } = agentContext(events, instance);
  const skip = call ? undefined : skippedFor(events, instance);
  if (skip) return `${skipNote(skip)}: it made no model call`;
  if (!call) return `${instance} has made no model call yet`;
  const lines = [`${call.instance} → ${call.provider} ${call.model} (call ${call.callId})`];
  for (const m of call.messages) lines.push(`[${m.role}, ~${m.tokens} tokens]`, m.text);
  lines.push(`~${call.tokens} tokens sent`);
  const { response } = call;
  if (response) {
    lines.push(
      `answer (${response.promptTokens} + ${response.completionTokens} tokens, ${response.source}): ${response.text}`,
    );
  }
  return lines.join('\n');
}
