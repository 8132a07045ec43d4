import { type ReactNode, useEffect, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { openFile } from '../files/actions.ts';
import { orderForOpening, recentFiles } from '../files/recent.ts';
import { useEditor } from '../store.ts';
import { DOC_LINKS } from './docs-links.ts';
import { TemplateCard, useTemplateList } from './Gallery.tsx';
import { featured } from './gallery-model.ts';
import { buildFromScratch } from './home.ts';
import './start.css';

/** How many recent documents the start page lists. */
const RECENT_SHOWN = 6;

/** The recent workspace documents that still exist, newest first. */
function useRecent(): { files: ApiResult<'files.list'> | null; error: string | null } {
  const [files, setFiles] = useState<ApiResult<'files.list'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api()
      .call('files.list', {})
      .then((list) =>
        setFiles(
          orderForOpening(list, recentFiles())
            .filter((f) => f.recent)
            .slice(0, RECENT_SHOWN),
        ),
      )
      .catch((e: Error) => setError(e.message));
  }, []);
  return { files, error };
}

function Section({ title, children, id }: { title: string; children: ReactNode; id: string }) {
  return (
    <section className="start-section" aria-labelledby={`start-${id}`} data-testid={`start-${id}`}>
      <h2 id={`start-${id}`}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * What the studio shows when no document is open: recent documents, a few templates to start
 * from, building from scratch, and the docs. `banners` (the connection, a kept draft) stay on top;
 * `children` are the editor's notices.
 */
export function StartPage({ banners, children }: { banners: ReactNode; children?: ReactNode }) {
  const templates = useTemplateList();
  const recent = useRecent();
  const picks = templates.list ? featured(templates.list) : [];
  return (
    <main className="start-page" data-testid="start-page">
      <div className="banners">{banners}</div>
      {children}
      <div className="start-inner">
        <header className="start-header">
          <h1>Build a society of minds</h1>
          <p className="muted">
            Start from a society a paper describes, open one of yours, or wire your own from the
            palette. Every template replays a recorded run, so nothing needs a key to try.
          </p>
          <div className="row">
            <button
              type="button"
              className="primary"
              data-testid="start-scratch"
              onClick={buildFromScratch}
            >
              Build from scratch
            </button>
            <button
              type="button"
              data-testid="start-gallery"
              onClick={() => useEditor.setState({ modal: { kind: 'gallery' } })}
            >
              All templates…
            </button>
            <button
              type="button"
              data-testid="start-open"
              onClick={() => useEditor.setState({ modal: { kind: 'open' } })}
            >
              Open…
            </button>
          </div>
        </header>

        <Section title="Start from a template" id="templates">
          {templates.error ? <p className="errors">{templates.error}</p> : null}
          {templates.list === null && !templates.error ? <p className="muted">Loading…</p> : null}
          <div className="cards start-cards">
            {picks.map((t) => (
              <TemplateCard key={t.file} entry={t} prefix="start-" />
            ))}
          </div>
        </Section>

        <div className="start-columns">
          <Section title="Recent documents" id="recent">
            {recent.error ? <p className="errors">{recent.error}</p> : null}
            {recent.files?.length === 0 ? (
              <p className="muted" data-testid="start-recent-none">
                Nothing opened or saved yet: what you save in the workspace shows here.
              </p>
            ) : null}
            <ul className="start-list">
              {recent.files?.map((f) => (
                <li key={f.name}>
                  <button
                    type="button"
                    className="link"
                    data-testid={`start-recent-${f.name}`}
                    onClick={() => openFile(f.name)}
                  >
                    {f.name}
                  </button>
                  <span className="muted small">{new Date(f.modifiedAt).toLocaleString()}</span>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Learn" id="docs">
            <ul className="start-list">
              {DOC_LINKS.map((d) => (
                <li key={d.href}>
                  <a href={d.href} target="_blank" rel="noreferrer" data-testid="start-doc">
                    {d.title}
                  </a>
                  <span className="muted small">{d.blurb}</span>
                </li>
              ))}
            </ul>
          </Section>
        </div>
      </div>
    </main>
  );
}
