/**
 * The toolbar's search (Ctrl/⌘+K or `/`): nodes on the canvas, stored runs and evals, in one
 * list a keyboard can walk (the ARIA combobox pattern: the field keeps focus, the arrows move
 * the active option, Enter picks it). A node is selected and centred on the canvas, a run opens
 * in the run panel, an eval opens in the Evals view.
 */
import { useReactFlow } from '@xyflow/react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ApiEvalSummary, ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { useEvalsView } from '../evals/EvalsView.tsx';
import { useMachineView } from '../machine/MachineView.tsx';
import type { FlowNode } from '../model/document.ts';
import { SPECS } from '../model/registry.ts';
import { showStoredRun } from '../run/controller.ts';
import { selectNode, useEditor } from '../store.ts';
import { type SearchResult, searchResults } from './search.ts';
import { keyLabel, shortcutOf } from './shortcuts.ts';

type RunRow = ApiResult<'runs.list'>[number];

/** How many stored runs and evals the search looks through (the newest). */
const STORED_LIMIT = 200;
/** The zoom a found node is shown at when the canvas is zoomed out further. */
const FOUND_ZOOM = 1;

const KIND_LABEL: Record<SearchResult['kind'], string> = {
  node: 'node',
  run: 'run',
  eval: 'eval',
};

export function SearchBox() {
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [runs, setRuns] = useState<RunRow[] | null>(null);
  const [evals, setEvals] = useState<ApiEvalSummary[] | null>(null);
  const nodes = useEditor((s) => s.nodes);
  const flow = useReactFlow<FlowNode>();

  const results = useMemo(
    () =>
      searchResults(query, {
        nodes,
        runs,
        evals,
        typeTitle: (type) => SPECS.get(type)?.title,
      }),
    [query, nodes, runs, evals],
  );
  const shown = open && results.length > 0;
  const current = results[Math.min(active, results.length - 1)];

  /** Runs and evals change as runs end: read them again each time the search is entered. */
  const loadStored = () => {
    api()
      .call('runs.list', { limit: STORED_LIMIT })
      .then(setRuns)
      .catch(() => setRuns(null));
    api()
      .call('evals.list', { limit: STORED_LIMIT })
      .then(setEvals)
      .catch(() => setEvals(null));
  };

  // Ctrl/⌘+K anywhere but the code editor; `/` when not typing elsewhere.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (shortcutOf(e) !== 'search' || useEditor.getState().modal) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (target === input.current) return;
      if (e.key === '/') {
        if (target?.isContentEditable || target?.closest('input, textarea, select, .nokey')) return;
      } else if (target?.closest('.nokey')) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const goToNode = (id: string) => {
    const { nodes: all } = useEditor.getState();
    let node = all.find((n) => n.id === id);
    // A member of a collapsed container is shown by its container.
    while (node?.hidden && node.parentId) {
      const parent: string = node.parentId;
      node = all.find((n) => n.id === parent);
    }
    if (!node) return;
    useMachineView.setState({ open: false });
    useEvalsView.setState({ open: false });
    selectNode(node.id);
    const at = flow.getInternalNode(node.id)?.internals.positionAbsolute ?? node.position;
    const width = node.measured?.width ?? node.width ?? 0;
    const height = node.measured?.height ?? node.height ?? 0;
    void flow.setCenter(at.x + width / 2, at.y + height / 2, {
      zoom: Math.max(flow.getZoom(), FOUND_ZOOM),
      duration: 200,
    });
  };

  const pick = (result: SearchResult | undefined) => {
    if (!result) return;
    setOpen(false);
    setQuery('');
    input.current?.blur();
    if (result.kind === 'node') goToNode(result.id);
    else if (result.kind === 'run') void showStoredRun(result.id);
    else {
      useMachineView.setState({ open: false });
      useEvalsView.setState({ open: true, evalId: result.id });
    }
  };

  const optionId = (i: number) => `${listId}-option-${i}`;

  return (
    <div className="search-box">
      <input
        ref={input}
        type="search"
        role="combobox"
        aria-label="Search nodes, runs and evals"
        aria-expanded={shown}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown && current ? optionId(results.indexOf(current)) : undefined}
        placeholder={`Search (${keyLabel('Mod+K')})`}
        data-testid="search-input"
        value={query}
        onFocus={() => {
          loadStored();
          setOpen(true);
        }}
        onBlur={() => setOpen(false)}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setOpen(true);
            const step = e.key === 'ArrowDown' ? 1 : -1;
            setActive((i) => (results.length ? (i + step + results.length) % results.length : 0));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            pick(current);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            if (shown) setOpen(false);
            else {
              setQuery('');
              input.current?.blur();
            }
          }
        }}
      />
      <div
        id={listId}
        role="listbox"
        aria-label="Search results"
        className="search-results"
        data-testid="search-results"
        hidden={!shown}
      >
        {results.map((r, i) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the field handles the keys (the option is its aria-activedescendant)
          <div
            key={`${r.kind}:${r.id}`}
            id={optionId(i)}
            role="option"
            tabIndex={-1}
            aria-selected={r === current}
            className={r === current ? 'active' : undefined}
            data-testid="search-result"
            data-kind={r.kind}
            data-id={r.id}
            // The field keeps focus (and the list stays) until the click picks.
            onMouseDown={(e) => e.preventDefault()}
            onMouseEnter={() => setActive(i)}
            onClick={() => pick(r)}
          >
            <span className={`search-kind search-kind-${r.kind}`}>{KIND_LABEL[r.kind]}</span>
            <span className="search-title">{r.title}</span>
            <span className="search-detail">{r.detail}</span>
          </div>
        ))}
      </div>
      {open && query.trim() && results.length === 0 ? (
        <p className="search-results search-empty" role="status">
          Nothing matches “{query}”.
        </p>
      ) : null}
    </div>
  );
}
