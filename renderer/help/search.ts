/**
 * What the toolbar's search finds: the nodes of the graph on the canvas (by id, label, type),
 * stored runs (by id, document, status, mode) and evals (by id, name, document, data). The
 * node palette filters node types with the same `matchesQuery`.
 */
import type { ApiEvalSummary, ApiResult } from '../../app/api/contract.ts';
import type { FlowNode } from '../model/document.ts';

type RunRow = ApiResult<'runs.list'>[number];

/**
 * Whether every word of the query appears (case aside) in one of the fields: `vote done`
 * finds a run of vote.society.json that is done.
 */
export function matchesQuery(query: string, fields: readonly (string | undefined)[]): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const texts = fields
    .filter((f): f is string => typeof f === 'string')
    .map((f) => f.toLowerCase());
  return words.every((word) => texts.some((text) => text.includes(word)));
}

/** One thing the search found. */
export interface SearchResult {
  kind: 'node' | 'run' | 'eval';
  /** The node's, run's or eval's id. */
  id: string;
  /** What the result says first: a node's label, a run's id, an eval's name. */
  title: string;
  /** What it says after: a node's type, a run's document and status, an eval's document. */
  detail: string;
}

/** Results shown per kind; a longer list only repeats what more typing would narrow. */
export const RESULTS_PER_KIND = 8;

/** What the search holds: the canvas's nodes, and the runs and evals when they have loaded. */
export interface SearchSources {
  nodes: readonly FlowNode[];
  runs: readonly RunRow[] | null;
  evals: readonly ApiEvalSummary[] | null;
  /** A node type's title ("Agent") for its type ("agent"). */
  typeTitle: (type: string) => string | undefined;
}

/** The results for a query, nodes first, then runs (newest first), then evals. */
export function searchResults(query: string, sources: SearchSources): SearchResult[] {
  if (!query.trim()) return [];
  const nodes = sources.nodes
    .map((node) => {
      const type = node.type ?? '';
      const label = typeof node.data.label === 'string' && node.data.label ? node.data.label : '';
      const typeTitle = sources.typeTitle(type);
      return { node, label, type, typeTitle };
    })
    .filter(({ node, label, type, typeTitle }) =>
      matchesQuery(query, [node.id, label, type, typeTitle]),
    )
    .slice(0, RESULTS_PER_KIND)
    .map(
      ({ node, label, type, typeTitle }): SearchResult => ({
        kind: 'node',
        id: node.id,
        title: label || node.id,
        detail: [label && label !== node.id ? node.id : '', typeTitle ?? type]
          .filter(Boolean)
          .join(' · '),
      }),
    );
  const runs = (sources.runs ?? [])
    .filter((run) => matchesQuery(query, [run.id, run.graph, run.status, run.mode]))
    .slice(0, RESULTS_PER_KIND)
    .map(
      (run): SearchResult => ({
        kind: 'run',
        id: run.id,
        title: run.id,
        detail: [run.graph, run.status, run.mode].filter(Boolean).join(' · '),
      }),
    );
  const evals = (sources.evals ?? [])
    .filter((e) => matchesQuery(query, [e.evalId, e.name, e.document, e.data, e.status]))
    .slice(0, RESULTS_PER_KIND)
    .map(
      (e): SearchResult => ({
        kind: 'eval',
        id: e.evalId,
        title: e.name,
        detail: `${e.document} · ${e.status} · ${e.evalId}`,
      }),
    );
  return [...nodes, ...runs, ...evals];
}
