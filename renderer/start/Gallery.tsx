import { useEffect, useState } from 'react';
import { create } from 'zustand';
import type { TemplateEntry } from '../../app/api/templates-contract.ts';
import { api } from '../api.ts';
import { openTemplate } from '../files/actions.ts';
import { Modal } from '../files/Modals.tsx';
import { GraphPicture } from './GraphPicture.tsx';
import { costBadge, type Grouping, groupEntries, keyBadges } from './gallery-model.ts';
import './start.css';

/** The templates as the backend lists them, fetched once for the gallery and the start page. */
const useTemplates = create<{ list: TemplateEntry[] | null; error: string | null }>(() => ({
  list: null,
  error: null,
}));
let loading = false;

/** The template list, asked for on first use (and again after a failure). */
export function useTemplateList(): { list: TemplateEntry[] | null; error: string | null } {
  const state = useTemplates();
  useEffect(() => {
    if (state.list || loading) return;
    loading = true;
    api()
      .call('templates.list', {})
      .then(
        (list) => useTemplates.setState({ list, error: null }),
        (e: Error) => useTemplates.setState({ error: e.message }),
      )
      .finally(() => {
        loading = false;
      });
  }, [state.list]);
  return state;
}

/**
 * One template: its picture, name, summary, citation, what it needs, and Open. Its test ids are
 * `template-FILE` and `template-open-FILE`, after `prefix` (the start page's `start-`: the
 * gallery may open over it).
 */
export function TemplateCard({ entry, prefix = '' }: { entry: TemplateEntry; prefix?: string }) {
  const keys = keyBadges(entry);
  return (
    <article className="card template-card" data-testid={`${prefix}template-${entry.file}`}>
      <GraphPicture doc={entry.outline} label={entry.name} />
      <h3>{entry.name}</h3>
      {entry.summary ? (
        <p className="template-summary" data-testid="template-summary">
          {entry.summary}
        </p>
      ) : null}
      <p className="card-description template-citation" title={entry.description}>
        {entry.description}
      </p>
      <div className="template-badges">
        {keys.map((k) => (
          <span
            key={k}
            className={`badge ${k === 'no key' ? 'badge-keyless' : 'badge-key'}`}
            data-testid="template-key"
            title={
              k === 'no key' ? 'A live run needs no key' : `A live run needs your ${k} (Settings)`
            }
          >
            {k}
          </span>
        ))}
        <span
          className="badge badge-cost"
          data-testid="template-cost"
          title="A likely live run, as `society run --estimate` reckons it"
        >
          {costBadge(entry.estimate)}
        </span>
        {entry.hasCassette ? (
          <span className="badge badge-keyless" title="A recorded cassette ships with it">
            runs without a key
          </span>
        ) : null}
      </div>
      <div className="row end">
        <button
          type="button"
          className="primary"
          data-testid={`${prefix}template-open-${entry.file}`}
          onClick={() => openTemplate(entry.file, entry.hasCassette)}
        >
          Open a copy
        </button>
      </div>
    </article>
  );
}

/** The gallery: search, grouped by paper or by kind, a card per template. */
export function GalleryModal() {
  const { list, error } = useTemplateList();
  const [query, setQuery] = useState('');
  const [by, setBy] = useState<Grouping>('paper');
  const groups = list ? groupEntries(list, query, by) : [];
  return (
    <Modal title="Templates" testId="gallery" wide>
      <div className="gallery-controls">
        <input
          type="search"
          aria-label="Search the templates"
          placeholder="Search: a title, a paper, a node type (router, expert…)"
          data-testid="gallery-search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <fieldset className="gallery-grouping">
          <legend>Group</legend>
          {(['paper', 'kind'] as const).map((g) => (
            <label key={g}>
              <input
                type="radio"
                name="gallery-grouping"
                data-testid={`gallery-by-${g}`}
                checked={by === g}
                onChange={() => setBy(g)}
              />
              by {g}
            </label>
          ))}
        </fieldset>
      </div>
      {error ? <p className="errors">{error}</p> : null}
      {list === null && !error ? <p className="muted">Loading…</p> : null}
      {list && groups.length === 0 ? (
        <p className="muted" data-testid="gallery-none">
          No template matches “{query}”.
        </p>
      ) : null}
      {groups.map((g) => (
        <section key={g.id} className="gallery-group" data-testid={`gallery-group-${g.id}`}>
          <h3 className="gallery-heading">
            {g.title} <span className="muted small">{g.entries.length}</span>
          </h3>
          <div className="cards">
            {g.entries.map((t) => (
              <TemplateCard key={t.file} entry={t} />
            ))}
          </div>
        </section>
      ))}
    </Modal>
  );
}
