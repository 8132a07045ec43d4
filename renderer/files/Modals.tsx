import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { formatProblem } from '../../app/schema/problems.ts';
import { api } from '../api.ts';
import { LiveEstimateModal } from '../run/LiveEstimate.tsx';
import { SettingsModal } from '../settings/SettingsModal.tsx';
import { GalleryModal } from '../start/Gallery.tsx';
import { useEditor } from '../store.ts';
import { openFile, suggestedFileName, writeFile } from './actions.ts';
import { orderForOpening, recentFiles } from './recent.ts';

const close = () => useEditor.setState({ modal: null });

/** The dialog frame every modal uses: a title, a close button, Escape closes. */
export function Modal({
  title,
  testId,
  children,
  wide = false,
}: {
  title: string;
  testId: string;
  children: ReactNode;
  wide?: boolean;
}) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    window.addEventListener('keydown', onKey);
    // Focus moves into the dialog so keyboard users land on its first control.
    ref.current?.querySelector<HTMLElement>('input, button, select, textarea')?.focus();
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="modal-backdrop">
      <div
        ref={ref}
        className={`modal${wide ? ' modal-wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
      >
        <header>
          <h2 id={titleId}>{title}</h2>
          <button
            type="button"
            className="icon"
            aria-label="Close"
            data-testid={`${testId}-close`}
            onClick={close}
          >
            ×
          </button>
        </header>
        <div className="modal-body">{children}</div>
      </div>
    </div>
  );
}

function SaveModal({ saveAs }: { saveAs: boolean }) {
  const [name, setName] = useState(suggestedFileName);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let file = name.trim();
    if (!file) {
      setError('give the file a name');
      return;
    }
    if (!file.endsWith('.society.json')) file = `${file.replace(/\.json$/, '')}.society.json`;
    setBusy(true);
    const failed = await writeFile(file);
    setBusy(false);
    if (failed) setError(failed);
    else close();
  };
  return (
    <Modal title={saveAs ? 'Save as' : 'Save'} testId="save-modal">
      <form onSubmit={submit}>
        <label htmlFor="save-name">File name in the workspace</label>
        <input
          id="save-name"
          type="text"
          data-testid="save-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <p className="muted small">Documents end in .society.json and never hold keys.</p>
        {error ? (
          <p className="errors" role="alert" data-testid="save-error">
            {error}
          </p>
        ) : null}
        <div className="row end">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary" data-testid="save-confirm" disabled={busy}>
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}

function OpenModal({ pick, title }: { pick?: (name: string) => void; title?: string }) {
  const [files, setFiles] = useState<ReturnType<
    typeof orderForOpening<ApiResult<'files.list'>[number]>
  > | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api()
      .call('files.list', {})
      .then((list) => setFiles(orderForOpening(list, recentFiles())))
      .catch((e: Error) => setError(e.message));
  }, []);
  return (
    <Modal title={title ?? 'Open from the workspace'} testId="open-modal">
      {error ? <p className="errors">{error}</p> : null}
      {files === null && !error ? <p className="muted">Loading…</p> : null}
      {files?.length === 0 ? (
        <p className="muted" data-testid="open-empty">
          No documents yet. Save one, or start from the gallery.
        </p>
      ) : null}
      <ul className="file-list">
        {files?.map((f) => (
          <li key={f.name}>
            <button
              type="button"
              data-testid={`file-${f.name}`}
              onClick={() => (pick ? pick(f.name) : openFile(f.name))}
            >
              <span>
                {f.name}
                {f.recent ? <span className="badge badge-recent">recent</span> : null}
              </span>
              <span className="muted small">{new Date(f.modifiedAt).toLocaleString()}</span>
            </button>
          </li>
        ))}
      </ul>
    </Modal>
  );
}

export function ModalHost() {
  const modal = useEditor((s) => s.modal);
  if (!modal) return null;
  switch (modal.kind) {
    case 'save':
      return <SaveModal saveAs={modal.saveAs} />;
    case 'open':
      return (
        <OpenModal
          {...(modal.pick ? { pick: modal.pick } : {})}
          {...(modal.title ? { title: modal.title } : {})}
        />
      );
    case 'gallery':
      return <GalleryModal />;
    case 'keys':
    case 'settings':
      return <SettingsModal />;
    case 'live-estimate':
      return (
        <LiveEstimateModal
          estimate={modal.estimate}
          onConfirm={modal.onConfirm}
          {...(modal.onCancel ? { onCancel: modal.onCancel } : {})}
          {...(modal.upperBound ? { upperBound: modal.upperBound } : {})}
        />
      );
    case 'confirm':
      return (
        <Modal title={modal.title ?? 'Unsaved changes'} testId="confirm-modal">
          <p>{modal.message}</p>
          <div className="row end">
            <button type="button" data-testid="confirm-cancel" onClick={close}>
              Cancel
            </button>
            <button
              type="button"
              className="danger"
              data-testid="confirm-ok"
              onClick={() => {
                close();
                modal.onConfirm();
              }}
            >
              {modal.confirm}
            </button>
          </div>
        </Modal>
      );
  }
}

/** Why a file could not be opened or imported; nothing on the canvas changed. */
export function ImportProblems() {
  const report = useEditor((s) => s.importProblems);
  if (!report) return null;
  return (
    <section className="import-problems" data-testid="import-problems" role="alert">
      <header>
        <h2>
          {report.source} was not opened: {report.problems.length} problem
          {report.problems.length === 1 ? '' : 's'}
        </h2>
        <button
          type="button"
          className="icon"
          aria-label="Dismiss"
          data-testid="import-problems-close"
          onClick={() => useEditor.setState({ importProblems: null })}
        >
          ×
        </button>
      </header>
      <ul>
        {report.problems.map((p) => (
          <li key={`${p.path}:${p.message}`}>{formatProblem(p)}</li>
        ))}
      </ul>
      <p className="muted small">The document on the canvas is unchanged.</p>
      {report.openAnyway ? (
        <div className="row end">
          <button type="button" data-testid="import-anyway" onClick={report.openAnyway}>
            Open it anyway, to fix it
          </button>
        </div>
      ) : null}
    </section>
  );
}
