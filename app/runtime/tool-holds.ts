/**
 * The debugger's two holds of a tool call. Before it runs (checkpoint `tool`: a tool that asks,
 * a `tool:NAME` breakpoint, stepping by tool) a person may edit its arguments or deny it. After it
 * returned and before its result goes back to the model (checkpoint `tool-result`: a
 * `tool-result:NAME` breakpoint, stepping by tool) a person may replace the result the model reads. The tool's own result stays in the run's record
 * (so a resume or fork never calls it again) and in the `tool.result` event as `original`; the
 * replacement is what the model reads, and a replay or fork gives it again without asking.
 */
import { userInfo } from 'node:os';
import type { ToolResult } from '../providers/tools.ts';
import type { Checkpoint, ToolResultEditor } from './events.ts';
import type { ToolEdit } from './run-options.ts';

/** The debugger's checkpoint before a tool call. */
export type ToolCheckpoint = Extract<Checkpoint, { kind: 'tool' }>;

/** The debugger's checkpoint after a tool returned. */
export type ToolResultCheckpoint = Extract<Checkpoint, { kind: 'tool-result' }>;

/** What the `tool.result` event adds when a person replaced the result. */
export interface ResultEditFields {
  edited: true;
  original: string;
  editedBy: ToolResultEditor;
}

/** The result a person gave, as a replay or fork finds it in `RunOptions.toolEdits`. */
export function knownResultEdit(
  edit: ToolEdit | undefined,
): { text: string; by: ToolResultEditor } | undefined {
  return edit && 'result' in edit ? edit.result : undefined;
}

/**
 * Who is at this debugger: the login name (`SOCIETY_RATER` when set, as for ratings), and
 * where they are. Kept in the run's record beside the result they gave.
 */
export function resultEditor(
  via: ToolResultEditor['via'],
  env: NodeJS.ProcessEnv = process.env,
): ToolResultEditor {
  let person = env.SOCIETY_RATER?.trim();
  if (!person) {
    try {
      person = userInfo().username;
    } catch {
      // No login name (a container's anonymous user): say so rather than fail the edit.
    }
  }
  const clean = (person ?? '').replace(/\p{Cc}/gu, '').slice(0, 80);
  return { person: clean || 'unknown', via };
}

export class ToolHolds {
  /** Calls held before they run, with what a person changed there. */
  readonly #calls = new Map<
    string,
    { check: (text: string) => Record<string, unknown> | string; edit?: ToolEdit }
  >();
  /** Calls held after they returned, with the result a person gave there. */
  readonly #held = new Map<string, { edit?: { text: string; by: ToolResultEditor } }>();
  readonly #answerBytes: number;

  constructor(answerBytes: number) {
    this.#answerBytes = answerBytes;
  }

  /**
   * Holds a call at its checkpoint before it runs; resolves with what a person changed there
   * (new arguments, a denial), if anything. `check` reads arguments against the tool's schema.
   */
  async beforeCall(
    at: ToolCheckpoint,
    check: (text: string) => Record<string, unknown> | string,
    hold: (at: ToolCheckpoint) => Promise<void>,
    signal: AbortSignal,
  ): Promise<ToolEdit | undefined> {
    const held: { check: typeof check; edit?: ToolEdit } = { check };
    this.#calls.set(at.callId, held);
    try {
      await hold(at);
    } finally {
      this.#calls.delete(at.callId);
    }
    signal.throwIfAborted();
    return held.edit;
  }

  /**
   * Changes the arguments of a call held before it runs (JSON text, checked against the tool's
   * schema now). Throws one line when no such call is held or the arguments do not fit.
   */
  editCall(callId: string, argumentsText: string): void {
    const held = this.#calls.get(callId);
    if (!held) throw new Error(`no tool call ${callId} is waiting to run`);
    const checked = held.check(argumentsText);
    if (typeof checked === 'string') throw new Error(checked);
    held.edit = { arguments: JSON.stringify(checked) };
  }

  /** Denies a call held before it runs: the tool never runs, the model reads why. */
  denyCall(callId: string): void {
    const held = this.#calls.get(callId);
    if (!held) throw new Error(`no tool call ${callId} is waiting to run`);
    held.edit = { denied: true };
  }

  /**
   * The result the model reads and what its `tool.result` event adds: a replay's or fork's
   * known edit as it was made, else, with a debugger attached, what a person gave while the
   * run was held at the call's `tool-result` checkpoint (nothing: the tool's own result).
   */
  async settle(
    at: Omit<ToolResultCheckpoint, 'kind' | 'result' | 'isError'>,
    result: ToolResult,
    known: { text: string; by: ToolResultEditor } | undefined,
    hold: ((at: ToolResultCheckpoint) => Promise<void>) | undefined,
    signal: AbortSignal,
  ): Promise<{ result: ToolResult; edit?: ResultEditFields }> {
    let edit = known;
    if (!edit && hold) {
      const held: { edit?: { text: string; by: ToolResultEditor } } = {};
      this.#held.set(at.callId, held);
      try {
        await hold({
          kind: 'tool-result',
          ...at,
          result: result.content,
          isError: result.isError === true,
        });
      } finally {
        this.#held.delete(at.callId);
      }
      signal.throwIfAborted();
      edit = held.edit;
    }
    if (!edit || edit.text === result.content) return { result };
    // What a person gives is the result the model reads: plain content, not an error, and no
    // structured value of the tool's beside it that would say otherwise.
    const { structured: _dropped, isError: _error, ...rest } = result;
    return {
      result: { ...rest, content: edit.text },
      edit: { edited: true, original: result.content, editedBy: edit.by },
    };
  }

  /**
   * Replaces the result of a call held after it returned; the model reads `text` when the run
   * goes on. Throws one line when no such call is held or the text is over the answer limit.
   */
  editResult(callId: string, text: string, by: ToolResultEditor): void {
    const held = this.#held.get(callId);
    if (!held) throw new Error(`no result of tool call ${callId} is waiting to go to the model`);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#answerBytes) {
      throw new Error(
        `the result is ${bytes.toLocaleString('en-US')} bytes, more than the run's answer limit of ${this.#answerBytes.toLocaleString('en-US')} (settings.limits.answerBytes)`,
      );
    }
    held.edit = { text, by };
  }
}
