import { useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ConnectionStatus } from './api.ts';
import { toggleEvalsView, useEvalsView } from './evals/EvalsView.tsx';
import { exportFile, importFile, newDoc, save, saveAs } from './files/actions.ts';
import { toggleHelp } from './help/HelpOverlay.tsx';
import { SearchBox } from './help/SearchBox.tsx';
import { toggleMachineView, useMachineView } from './machine/MachineView.tsx';
import { control, isActive, startRun } from './run/controller.ts';
import { goHome, useHome } from './start/home.ts';
import { redo, undo, useEditor } from './store.ts';

export function Toolbar({ connection }: { connection: ConnectionStatus }) {
  const fileInput = useRef<HTMLInputElement>(null);
  const { name, fileName, dirty, template, status, canUndo, canRedo } = useEditor(
    useShallow((s) => ({
      name: s.meta.name,
      fileName: s.fileName,
      dirty: s.dirty,
      template: s.template,
      status: s.run.status,
      canUndo: s.past.length > 0,
      canRedo: s.future.length > 0,
    })),
  );
  const machineOpen = useMachineView((s) => s.open);
  const evalsOpen = useEvalsView((s) => s.open);
  // On the start page no document is open: nothing to save, export or run.
  const home = useHome((s) => s.open);
  const online = connection === 'open';
  const canRun = online && !home;
  const active = isActive(status);
  const canStep = status === 'running' || status === 'paused';
  const replay = template?.hasCassette === true;
  return (
    <header className="toolbar" role="toolbar" aria-label="Document and run">
      <div className="brand" title={home ? undefined : (fileName ?? 'not saved yet')}>
        <strong>Society Studio</strong>
        <span className="doc-name" data-testid="doc-title">
          {home ? 'Start' : name}
          {dirty && !home ? (
            <span className="dirty" data-testid="dirty-marker" title="unsaved changes">
              {' '}
              •
            </span>
          ) : null}
        </span>
        <span className="muted small">{home ? 'no document open' : (fileName ?? 'unsaved')}</span>
      </div>
      <div className="group">
        <button
          type="button"
          data-testid="tb-home"
          onClick={goHome}
          title="Close the document and show the start page: recent documents and templates"
        >
          Home
        </button>
        <button type="button" data-testid="tb-new" onClick={newDoc}>
          New
        </button>
        <button
          type="button"
          data-testid="tb-open"
          disabled={!online}
          onClick={() => useEditor.setState({ modal: { kind: 'open' } })}
        >
          Open…
        </button>
        <button
          type="button"
          data-testid="tb-gallery"
          disabled={!online}
          onClick={() => useEditor.setState({ modal: { kind: 'gallery' } })}
        >
          Gallery
        </button>
        <button type="button" data-testid="tb-import" onClick={() => fileInput.current?.click()}>
          Import…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          hidden
          data-testid="import-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) importFile(file);
            e.target.value = '';
          }}
        />
        <button type="button" data-testid="tb-save" disabled={!canRun} onClick={save}>
          Save
        </button>
        <button type="button" data-testid="tb-save-as" disabled={!canRun} onClick={saveAs}>
          Save as…
        </button>
        <button
          type="button"
          data-testid="tb-export"
          disabled={home}
          onClick={exportFile}
          title="Download the document (it never holds keys)"
        >
          Export
        </button>
      </div>
      <div className="group">
        <button
          type="button"
          data-testid="tb-undo"
          disabled={!canUndo}
          onClick={undo}
          title="Undo (Ctrl+Z)"
        >
          Undo
        </button>
        <button
          type="button"
          data-testid="tb-redo"
          disabled={!canRedo}
          onClick={redo}
          title="Redo (Ctrl+Shift+Z)"
        >
          Redo
        </button>
      </div>
      <div className="group search-group">
        <SearchBox />
      </div>
      <div className="group">
        {replay ? (
          <button
            type="button"
            className="primary"
            data-testid="tb-replay"
            disabled={!canRun || active}
            onClick={() => startRun('replay')}
            title={`Answer from ${template?.file}'s cassette: calls nothing, needs no key. Refused, before anything runs, when the document, a parameter or an input differs from what it was recorded with`}
          >
            Replay cassette
          </button>
        ) : null}
        <button
          type="button"
          className={replay ? undefined : 'primary'}
          data-testid="tb-run-simulated"
          disabled={!canRun || active}
          onClick={() => startRun('simulated')}
          title="Deterministic simulated answers, clearly labelled; calls nothing, needs no key"
        >
          Run simulated
        </button>
        <button
          type="button"
          data-testid="tb-run-live"
          disabled={!canRun || active}
          onClick={() => startRun('live')}
          title="Call the models with your keys (paid). Asks first when the estimate is above the threshold in Settings"
        >
          Run live
        </button>
        <button
          type="button"
          data-testid="tb-pause"
          disabled={status !== 'running'}
          onClick={() => control('pause')}
        >
          Pause
        </button>
        <button
          type="button"
          data-testid="tb-step-message"
          disabled={!canStep}
          onClick={() => control('step', 'message')}
        >
          Step message
        </button>
        <button
          type="button"
          data-testid="tb-step-node"
          disabled={!canStep}
          onClick={() => control('step', 'node')}
        >
          Step node
        </button>
        <button
          type="button"
          data-testid="tb-step-round"
          disabled={!canStep}
          onClick={() => control('step', 'round')}
        >
          Step round
        </button>
        <button
          type="button"
          data-testid="tb-continue"
          disabled={status !== 'paused'}
          onClick={() => control('resume')}
        >
          Continue
        </button>
        <button
          type="button"
          className="danger"
          data-testid="tb-stop"
          disabled={!active}
          onClick={() => control('cancel')}
        >
          Stop
        </button>
      </div>
      <div className="group end">
        <button
          type="button"
          data-testid="tb-machine"
          aria-pressed={machineOpen}
          disabled={!online && !machineOpen}
          onClick={() => {
            useEvalsView.setState({ open: false });
            toggleMachineView();
          }}
          title="The compiled XState machine, with the run's current state"
        >
          Machine
        </button>
        <button
          type="button"
          data-testid="tb-evals"
          aria-pressed={evalsOpen}
          disabled={!online && !evalsOpen}
          onClick={() => {
            useMachineView.setState({ open: false });
            toggleEvalsView();
          }}
          title="Stored evals: tables, charts, and each item's run"
        >
          Evals
        </button>
        <button
          type="button"
          data-testid="settings-button"
          disabled={!online}
          onClick={() => useEditor.setState({ modal: { kind: 'settings' } })}
          title="Keys, providers, default models and prices"
        >
          Settings
        </button>
        <button
          type="button"
          data-testid="help-button"
          aria-haspopup="dialog"
          onClick={toggleHelp}
          title="Keyboard shortcuts and the docs (?)"
        >
          Help
        </button>
        <span
          className={`connection connection-${connection}`}
          data-testid="connection-status"
          title={
            connection === 'locked'
              ? 'this tab has no studio token: open the address `npm run studio` printed'
              : `studio connection: ${connection}`
          }
        >
          {connection === 'open'
            ? 'connected'
            : connection === 'locked'
              ? 'no token'
              : connection === 'restarted'
                ? 'studio restarted'
                : connection === 'stopped'
                  ? 'studio stopped'
                  : connection}
        </span>
      </div>
    </header>
  );
}
