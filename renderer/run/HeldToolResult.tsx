/**
 * A tool call the run is held after, once the tool returned and before the model reads its
 * result (a tool-result breakpoint, or a step by tool): who asked, the tool, the arguments it
 * was sent and its result, editable as JSON (checked to parse, sent compact) or as text.
 * Continue (or a step) sends what the box holds; the run's record keeps the tool's own result.
 */
import { create } from 'zustand';
import { api } from '../api.ts';
import type { Checkpoint, RunView } from '../model/run.ts';
import { useEditor } from '../store.ts';
import './held-result.css';

type ResultCheckpoint = Extract<Checkpoint, { kind: 'tool-result' }>;
type Mode = 'json' | 'text';

interface ResultDraft {
  /** `runId:callId`: a draft never moves to another call. */
  key: string;
  text: string;
  mode: Mode;
  /** Why the last try was refused (not JSON here, or over the answer limit there). */
  problem?: string;
}

const useResultDraft = create<{ draft: ResultDraft | null }>()(() => ({ draft: null }));

/** The tool call the run is held after, if it is held at one. */
export function heldToolResult(
  run: Pick<RunView, 'runId' | 'status' | 'paused'>,
): (ResultCheckpoint & { key: string }) | null {
  const at = run.paused?.at;
  if (run.status !== 'paused' || at?.kind !== 'tool-result' || !run.runId) return null;
  return { ...at, key: `${run.runId}:${at.callId}` };
}

/** A result that is a JSON object or array is edited as JSON (pretty); any other as text. */
function initial(result: string): { text: string; mode: Mode } {
  try {
    const value: unknown = JSON.parse(result);
    if (typeof value === 'object' && value !== null)
      return { text: JSON.stringify(value, null, 2), mode: 'json' };
  } catch {
    // Not JSON: the text as the tool gave it.
  }
  return { text: result, mode: 'text' };
}

/**
 * Sends the edited result of the held call, if it changed. False (and the reason shown by the
 * editor) when the JSON does not parse or the backend refused it: the run stays held.
 */
export async function applyHeldToolResultEdit(): Promise<boolean> {
  const { run } = useEditor.getState();
  const held = heldToolResult(run);
  const { draft } = useResultDraft.getState();
  if (!held || !draft || draft.key !== held.key || !run.runId) return true;
  let result = draft.text;
  if (draft.mode === 'json') {
    try {
      result = JSON.stringify(JSON.parse(draft.text));
    } catch (error) {
      useResultDraft.setState({
        draft: { ...draft, problem: `not JSON: ${(error as Error).message}` },
      });
      return false;
    }
    // Only a layout change of the tool's own JSON is no edit.
    const own = initial(held.result);
    if (own.mode === 'json' && result === JSON.stringify(JSON.parse(held.result))) return true;
  }
  if (result === held.result) return true;
  try {
    await api().call('run.editHeldToolResult', { runId: run.runId, callId: held.callId, result });
    return true;
  } catch (error) {
    useResultDraft.setState({ draft: { ...draft, problem: (error as Error).message } });
    return false;
  }
}

export function HeldToolResult() {
  const run = useEditor((s) => s.run);
  const held = heldToolResult(run);
  const draft = useResultDraft((s) => s.draft);
  if (!held) return null;
  const current = draft?.key === held.key ? draft : { key: held.key, ...initial(held.result) };
  const change = (next: Partial<ResultDraft>) =>
    useResultDraft.setState({ draft: { ...current, ...next, problem: undefined } });
  return (
    <div className="held-editor" data-testid="held-tool-result">
      <p className="small">
        <code>{held.instance}</code> called <strong>{held.tool}</strong>{' '}
        <span className="muted">({held.source})</span> with <code>{held.arguments}</code>; it
        returned{held.isError ? ' an error' : ''}. Edit the result the model reads, then Continue:
      </p>
      <fieldset className="held-result-mode">
        <legend className="small muted">Edit it as</legend>
        {(['json', 'text'] as const).map((mode) => (
          <label key={mode} className="inline small">
            <input
              type="radio"
              name="held-tool-result-mode"
              data-testid={`held-tool-result-as-${mode}`}
              checked={current.mode === mode}
              onChange={() => change({ mode })}
            />
            as {mode === 'json' ? 'JSON' : 'text'}
          </label>
        ))}
      </fieldset>
      <textarea
        aria-label={`The result of ${held.tool} the model reads (${current.mode === 'json' ? 'JSON' : 'text'})`}
        data-testid="held-tool-result-text"
        rows={Math.min(12, current.text.split('\n').length + 1)}
        spellCheck={false}
        value={current.text}
        onChange={(e) => change({ text: e.target.value })}
      />
      {current.problem ? (
        <p className="field-error small" role="alert" data-testid="held-tool-result-problem">
          {current.problem}
        </p>
      ) : null}
    </div>
  );
}
