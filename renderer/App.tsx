import { ReactFlowProvider } from '@xyflow/react';
import { useEffect, useState } from 'react';
import { api, type ConnectionStatus } from './api.ts';
import { ConnectionBanner, DraftOffer } from './ConnectionBanner.tsx';
import { watchDrafts } from './drafts.ts';
import { Canvas } from './editor/Canvas.tsx';
import { Palette } from './editor/Palette.tsx';
import { EvalsView, useEvalsView } from './evals/EvalsView.tsx';
import { save } from './files/actions.ts';
import { ImportProblems, ModalHost } from './files/Modals.tsx';
import { HelpOverlay } from './help/HelpOverlay.tsx';
import { isTyping, shortcutOf } from './help/shortcuts.ts';
import { Inspector } from './inspector/Inspector.tsx';
import { MachineView, useMachineView } from './machine/MachineView.tsx';
import { followCanvasSelection } from './run/debugState.ts';
import { RunPanel } from './run/RunPanel.tsx';
import { watchRuns } from './run/run-feed.ts';
import { loadModelDefaults } from './settings/defaults.ts';
import { useHome } from './start/home.ts';
import { StartPage } from './start/StartPage.tsx';
import { copy, currentDocument, notify, paste, redo, undo, useEditor } from './store.ts';
import { Toolbar } from './Toolbar.tsx';

/** Ctrl/Cmd shortcuts (help/shortcuts.ts); text fields keep their own (undo undoes typing). */
function useShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const shortcut = shortcutOf(e);
      if (shortcut === 'save') {
        e.preventDefault();
        if (!useEditor.getState().modal) save();
        return;
      }
      if (isTyping(e.target) || useEditor.getState().modal) return;
      if (shortcut === 'undo') undo();
      else if (shortcut === 'redo') redo();
      else if (shortcut === 'copy') {
        const n = copy();
        if (n) notify('info', `Copied ${n} node${n === 1 ? '' : 's'}`);
        return;
      } else if (shortcut === 'paste') paste();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** The browser asks before leaving a page with unsaved changes. */
function useLeaveWarning() {
  useEffect(() => {
    const onLeave = (e: BeforeUnloadEvent) => {
      if (!useEditor.getState().dirty) return;
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, []);
}

/**
 * Asks the backend to check the document a moment after each change; its answer (the compiler's
 * problems, each naming a node or path) fills the Problems tab.
 */
function useValidation(connection: ConnectionStatus) {
  useEffect(() => {
    if (connection !== 'open') return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let latest = 0;
    const check = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const ticket = ++latest;
        try {
          const result = await api().call('document.validate', {
            document: currentDocument() as unknown as Record<string, unknown>,
          });
          if (ticket === latest) useEditor.setState({ problems: result.problems });
        } catch {
          // A failed check leaves the last answer; running the document reports problems too.
        }
      }, 500);
    };
    check();
    const unsubscribe = useEditor.subscribe((state, previous) => {
      if (
        state.nodes !== previous.nodes ||
        state.edges !== previous.edges ||
        state.meta !== previous.meta
      ) {
        // Selection and measuring change node objects too; only a changed document matters.
        if (state.dirty || state.epoch !== previous.epoch) check();
      }
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [connection]);
}

function Notice() {
  const notice = useEditor((s) => s.notice);
  useEffect(() => {
    // A notice that offers a choice stays until the person makes it (or dismisses it).
    if (!notice || notice.actions) return;
    const timer = setTimeout(
      () => useEditor.setState((s) => (s.notice === notice ? { notice: null } : {})),
      notice.kind === 'error' ? 8000 : 3000,
    );
    return () => clearTimeout(timer);
  }, [notice]);
  if (!notice) return null;
  return (
    <div
      className={`notice notice-${notice.kind}`}
      data-testid="notice"
      role={notice.kind === 'error' ? 'alert' : 'status'}
    >
      <span className="notice-text">{notice.text}</span>
      {notice.actions?.map((action) => (
        <button
          key={action.testId}
          type="button"
          data-testid={action.testId}
          onClick={() => {
            useEditor.setState({ notice: null });
            action.run();
          }}
        >
          {action.label}
        </button>
      ))}
      <button
        type="button"
        className="icon"
        aria-label="Dismiss"
        data-testid="notice-dismiss"
        onClick={() => {
          useEditor.setState({ notice: null });
          notice.onDismiss?.();
        }}
      >
        ×
      </button>
    </div>
  );
}

export function App() {
  const [connection, setConnection] = useState<ConnectionStatus>('connecting');
  useEffect(() => {
    const client = api();
    const off = client.onStatus(setConnection);
    client.connect();
    watchRuns();
    const stopDrafts = watchDrafts();
    followCanvasSelection();
    void loadModelDefaults();
    return () => {
      off();
      stopDrafts();
    };
  }, []);
  // The Machine and Evals views open over the editor, with or without a document.
  const homeOpen = useHome((s) => s.open);
  const machineOpen = useMachineView((s) => s.open);
  const evalsOpen = useEvalsView((s) => s.open);
  const home = homeOpen && !machineOpen && !evalsOpen;
  useShortcuts();
  useLeaveWarning();
  useValidation(connection);
  return (
    <ReactFlowProvider>
      <div className="app">
        <Toolbar connection={connection} />
        {home ? (
          <StartPage
            banners={
              <>
                <ConnectionBanner connection={connection} />
                <DraftOffer />
              </>
            }
          >
            <ImportProblems />
            <Notice />
          </StartPage>
        ) : (
          <div className="workspace">
            <Palette />
            <main className="center">
              <Canvas />
              <MachineView />
              <ImportProblems />
              <Notice />
              <div className="banners">
                <ConnectionBanner connection={connection} />
                <DraftOffer />
              </div>
            </main>
            <Inspector />
            <EvalsView />
          </div>
        )}
        {home ? null : <RunPanel />}
        <ModalHost />
        <HelpOverlay />
      </div>
    </ReactFlowProvider>
  );
}
