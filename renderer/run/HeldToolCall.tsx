/**
 * A tool call the run is held before (its tool asks first, or a tool breakpoint): who asked,
 * the tool, and its arguments as editable JSON. Continue sends the edited arguments (the backend
 * checks them against the tool's schema; a refusal keeps the run held and says why); Deny
 * tells the model the call was denied, and the tool never runs.
 */
import { create } from 'zustand';
import { api } from '../api.ts';
import type { Checkpoint, RunView } from '../model/run.ts';
import { notify, useEditor } from '../store.ts';

type ToolCheckpoint = Extract<Checkpoint, { kind: 'tool' }>;

interface ToolDraft {
  /** `runId:callId`: a draft never moves to another call. */
  key: string;
  text: string;
  /** Why the last try was refused (not JSON here, or not the tool's schema there). */
  problem?: string;
}

const useToolDraft = create<{ draft: ToolDraft | null }>()(() => ({ draft: null }));

/** The tool call the run is held before, if it is held at one. */
export function heldToolCall(
  run: Pick<RunView, 'runId' | 'status' | 'paused'>,
): (ToolCheckpoint & { key: string }) | null {
  const at = run.paused?.at;
  if (run.status !== 'paused' || at?.kind !== 'tool' || !run.runId) return null;
  return { ...at, key: `${run.runId}:${at.callId}` };
}

/** Pretty JSON for the editor, or the text as the model wrote it when it is not JSON. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * Sends the edited arguments of the held tool call, if they changed. False (and the reason
 * shown by the editor) when they are not JSON or the backend refused them: the run stays held.
 */
export async function applyHeldToolEdit(): Promise<boolean> {
  const { run } = useEditor.getState();
  const held = heldToolCall(run);
  const { draft } = useToolDraft.getState();
  if (!held || !draft || draft.key !== held.key || !run.runId) return true;
  let compact: string;
  try {
    compact = JSON.stringify(JSON.parse(draft.text));
  } catch (error) {
    useToolDraft.setState({
      draft: { ...draft, problem: `not JSON: ${(error as Error).message}` },
    });
    return false;
  }
  if (compact === JSON.stringify(JSON.parse(pretty(held.arguments) || '{}'))) return true;
  try {
    await api().call('run.editHeldTool', {
      runId: run.runId,
      callId: held.callId,
      arguments: compact,
    });
    return true;
  } catch (error) {
    useToolDraft.setState({ draft: { ...draft, problem: (error as Error).message } });
    return false;
  }
}

/** Denies the held call and lets the run go on: the model reads that it was denied. */
async function deny(held: ToolCheckpoint & { key: string }, runId: string): Promise<void> {
  try {
    await api().call('run.editHeldTool', { runId, callId: held.callId, deny: true });
    await api().call('run.control', { runId, action: 'resume' });
  } catch (error) {
    notify('error', `the call was not denied: ${(error as Error).message}`);
  }
}

export function HeldToolCall() {
  const run = useEditor((s) => s.run);
  const held = heldToolCall(run);
  const draft = useToolDraft((s) => s.draft);
  if (!held || !run.runId) return null;
  const runId = run.runId;
  const current = draft?.key === held.key ? draft : null;
  const text = current?.text ?? pretty(held.arguments);
  return (
    <div className="held-editor" data-testid="held-tool">
      <p className="small">
        <code>{held.instance}</code> asks to call <strong>{held.tool}</strong>{' '}
        <span className="muted">({held.source})</span>
        {held.ask ? ' — this tool asks before it runs.' : '.'} Edit its arguments, then Continue, or
        Deny it:
      </p>
      <textarea
        aria-label="Tool arguments (JSON)"
        data-testid="held-tool-arguments"
        rows={Math.min(12, text.split('\n').length + 1)}
        spellCheck={false}
        value={text}
        onChange={(e) => useToolDraft.setState({ draft: { key: held.key, text: e.target.value } })}
      />
      {current?.problem ? (
        <p className="field-error small" role="alert" data-testid="held-tool-problem">
          {current.problem}
        </p>
      ) : null}
      <div className="paused-controls">
        <button type="button" data-testid="held-tool-deny" onClick={() => void deny(held, runId)}>
          Deny
        </button>
      </div>
    </div>
  );
}
