/**
 * Edit and continue: while the run is held before a message is delivered, its text is editable
 * and Step or Continue delivers the edit (it also becomes the node's output); while it is held
 * before a node starts, that node's outputs can be set instead, and it will not run.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { nodeOfRunId } from '../editor/library-actions.ts';
import { heldMessage, heldNode } from '../model/held.ts';
import { specPorts } from '../model/ports.ts';
import { useEditor } from '../store.ts';
import { applyHeldEdit, overrideHeldOutput } from './controller.ts';
import { useDebug } from './debugState.ts';
import './run.css';

function HeldMessageEditor({
  held,
  replaying,
}: {
  held: { key: string; instance: string; text: string };
  replaying: boolean;
}) {
  const draft = useDebug((s) => s.draft);
  // A new held message starts a new draft.
  useEffect(() => {
    if (useDebug.getState().draft?.key === held.key) return;
    useDebug.setState({
      draft: {
        key: held.key,
        instance: held.instance,
        original: held.text,
        text: held.text,
        applied: false,
      },
    });
  }, [held.key, held.instance, held.text]);
  const current = draft?.key === held.key ? draft : null;
  const text = current?.text ?? held.text;
  const edited = current !== null && current.text !== current.original;
  return (
    <div className="held-editor">
      <label htmlFor="held-message" className="small">
        Message from <code>{held.instance}</code>, before it is delivered — edit it, then Step or
        Continue:
      </label>
      <textarea
        id="held-message"
        data-testid="held-message-editor"
        rows={3}
        value={text}
        onChange={(e) =>
          useDebug.setState({
            draft: {
              key: held.key,
              instance: held.instance,
              original: current?.original ?? held.text,
              text: e.target.value,
              applied: false,
            },
          })
        }
      />
      <div className="row">
        <button
          type="button"
          data-testid="held-message-apply"
          disabled={!edited || current?.applied}
          onClick={() => void applyHeldEdit()}
        >
          Apply edit
        </button>
        <button
          type="button"
          data-testid="held-message-reset"
          disabled={!edited}
          onClick={() =>
            current &&
            useDebug.setState({ draft: { ...current, text: current.original, applied: false } })
          }
        >
          Reset
        </button>
        <span className="muted small" data-testid="held-message-status">
          {current?.applied
            ? 'edit applied: it is delivered when the run goes on'
            : edited
              ? 'edited: sent with the next Step or Continue'
              : 'as the agent wrote it'}
        </span>
        {edited && replaying ? (
          <span className="warn-text small">
            This run replays a cassette: later calls that read the edit cannot come from it. Step or
            Continue asks whether to simulate the rest, go live or cancel the edit.
          </span>
        ) : null}
      </div>
    </div>
  );
}

function HeldOutputEditor({ held }: { held: { instance: string; node: string } }) {
  // A member of a sub-society (`panel/voice`) is found through the document's library.
  const node = useEditor((s) => nodeOfRunId(s, held.node));
  const ports = useMemo(
    () => (node ? specPorts({ id: node.id, type: node.type, data: node.data }).outputs : []),
    [node],
  );
  const [port, setPort] = useState('');
  const [value, setValue] = useState('');
  const chosen = ports.find((p) => p.name === port) ?? ports[0];
  if (!chosen) return null;
  const submit = () => {
    let parsed: unknown = value;
    if (chosen.modality !== 'text') {
      try {
        parsed = JSON.parse(value);
      } catch {
        // Not JSON: the text itself, as the terminal debugger's `o PORT=VALUE` takes it.
      }
    }
    void overrideHeldOutput(held.instance, { [chosen.name]: parsed });
  };
  return (
    <details className="held-editor" data-testid="held-output-editor">
      <summary className="small">
        Set the output of <code>{held.instance}</code> instead of running it
      </summary>
      <div className="row">
        <select
          data-testid="held-output-port"
          value={chosen.name}
          onChange={(e) => setPort(e.target.value)}
        >
          {ports.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} ({p.modality})
            </option>
          ))}
        </select>
        <textarea
          data-testid="held-output-value"
          rows={2}
          value={value}
          placeholder={
            chosen.modality === 'text' ? 'the text it outputs' : `${chosen.modality} (JSON)`
          }
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="button" data-testid="held-output-apply" onClick={submit}>
          Set output
        </button>
      </div>
    </details>
  );
}

function HeldEditorView() {
  const run = useEditor(
    useShallow((s) => ({
      runId: s.run.runId,
      status: s.run.status,
      paused: s.run.paused,
      mode: s.run.mode,
    })),
  );
  const message = heldMessage(run);
  const node = heldNode(run);
  if (message) return <HeldMessageEditor held={message} replaying={run.mode === 'replay'} />;
  if (node) return <HeldOutputEditor key={node.instance} held={node} />;
  return null;
}

export const HeldEditor = memo(HeldEditorView);
