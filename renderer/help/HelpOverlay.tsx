/**
 * The help: `?` (or Help in the toolbar) opens the keyboard shortcuts (from shortcuts.ts, the
 * list the handlers use) and links to the docs. The docs are served by the studio, or by the
 * desktop app, from this machine at /docs/ (main/docs/docs.ts); a link opens in a new tab or
 * window, so the editor stays as it is.
 */
import { type KeyboardEvent as ReactKeyboardEvent, useEffect, useId, useRef } from 'react';
import { create } from 'zustand';
import { useEditor } from '../store.ts';
import { isTyping, keyLabel, SHORTCUTS, shortcutOf } from './shortcuts.ts';
import './help.css';

/** Whether the help is open. */
export const useHelp = create<{ open: boolean }>()(() => ({ open: false }));

export function toggleHelp(): void {
  useHelp.setState((s) => ({ open: !s.open }));
}

const close = () => useHelp.setState({ open: false });

/** The docs the help links to: the file served at /docs/<file>, and what it is about. */
export const HELP_DOCS: readonly { file: string; title: string; about: string }[] = [
  { file: 'README.md', title: 'Getting started', about: 'install, the editor, the CLI, templates' },
  { file: 'graph-format.md', title: 'Graph format', about: 'the .society.json document' },
  { file: 'tools.md', title: 'Tools', about: 'agents that call tools, approval, estimates' },
  { file: 'evals.md', title: 'Evals', about: 'scoring variants over a data set, ratings' },
  { file: 'architecture.md', title: 'Architecture', about: 'compiler, runtime, node types' },
  { file: 'nlsom.md', title: 'NLSOM', about: 'the mindstorm templates of the paper' },
  { file: 'itcma.md', title: 'ITCMA', about: 'the sandbox society of the paper' },
];

/** Elements Tab can reach inside the dialog, in order. */
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), [tabindex="0"]';

function HelpDialog() {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Focus goes back where it was when the help closes.
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    ref.current?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        close();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      returnTo?.focus();
    };
  }, []);

  /**
   * Keeps Tab and Shift+Tab inside the dialog, closes it on Escape, and keeps the editor's own
   * shortcuts from acting behind it.
   */
  const onKeyDown = (e: ReactKeyboardEvent) => {
    e.stopPropagation();
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click beside the dialog closes it; Escape and the close button are the keyboard's way
    <div
      className="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) close();
      }}
    >
      <div
        ref={ref}
        className="modal modal-wide help"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="help-overlay"
        onKeyDown={onKeyDown}
      >
        <header>
          <h2 id={titleId}>Help</h2>
          <button
            type="button"
            className="icon"
            aria-label="Close help"
            data-testid="help-close"
            onClick={close}
          >
            ×
          </button>
        </header>
        <div className="modal-body help-body">
          <section aria-labelledby={`${titleId}-keys`}>
            <h3 id={`${titleId}-keys`}>Keyboard shortcuts</h3>
            <table className="help-shortcuts" data-testid="help-shortcuts">
              <tbody>
                {SHORTCUTS.map((s) => (
                  <tr key={s.id} data-testid={`help-shortcut-${s.id}`}>
                    <td className="help-keys">
                      {s.keys.map((keys, i) => (
                        <span key={keys}>
                          {i > 0 ? <span className="muted"> or </span> : null}
                          <kbd>{keyLabel(keys)}</kbd>
                        </span>
                      ))}
                    </td>
                    <td>
                      {s.does}
                      {s.where ? <span className="muted"> ({s.where})</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted small">
              The letter shortcuts leave text fields alone: in a prompt, Ctrl+Z undoes typing.
            </p>
          </section>
          <section aria-labelledby={`${titleId}-docs`}>
            <h3 id={`${titleId}-docs`}>Docs</h3>
            <ul className="help-docs">
              {HELP_DOCS.map((doc) => (
                <li key={doc.file}>
                  <a
                    href={`/docs/${doc.file}`}
                    target="_blank"
                    rel="noopener noreferrer"
                    data-testid={`help-doc-${doc.file}`}
                  >
                    {doc.title}
                  </a>{' '}
                  <span className="muted small">{doc.about}</span>
                </li>
              ))}
              <li>
                <a
                  href="/docs/"
                  target="_blank"
                  rel="noopener noreferrer"
                  data-testid="help-docs-all"
                >
                  All docs
                </a>
              </li>
            </ul>
            <p className="muted small">
              The docs open in a new window, served from this machine: nothing is fetched from the
              web.
            </p>
          </section>
        </div>
      </div>
    </div>
  );
}

/** The help overlay, and `?` to open or close it (not while typing or in a dialog). */
export function HelpOverlay() {
  const open = useHelp((s) => s.open);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (shortcutOf(e) !== 'help' || isTyping(e.target) || useEditor.getState().modal) return;
      e.preventDefault();
      toggleHelp();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return open ? <HelpDialog /> : null;
}
