/**
 * Run-panel tabs for what nodes report (`NodeContext.report`). A node type may ship one in its
 * folder: an optional `nodes/<type>/run-view.tsx` exporting `runView` (a `NodeRunView`) is
 * found at build time, like the specs and `view.tsx`, so a node type adds its tab by adding a
 * file to its folder. A view shows its own node type's reports, or, when it names `kinds`, the
 * reports of those kinds from any node: the Votes tab (nodes/vote) shows every `tally`, a
 * mindstorm's too. The shared analytics vocabulary (app/node-sdk/reported.ts), which no one node
 * type owns, has its view here, keyed by its kinds in the same way. A tab shows only for a run
 * that has reports for it.
 */
import type { ComponentType } from 'react';
import { byFolder } from '../model/node-folders.ts';
import type { PlanView, ReportView } from '../model/run.ts';
import { analyticsView } from './Analytics.tsx';

/**
 * What a run view is given: the run's reports it shows, and the graphs nodes of its type ran as
 * their children (`ctx.runGraph`, a planner's plans), each in order.
 */
export interface NodeRunViewProps {
  reports: readonly ReportView[];
  graphs: readonly PlanView[];
}

/** What a node type's `run-view.tsx` exports as `runView`. */
export interface NodeRunView {
  /** The tab's label. */
  title: string;
  /**
   * The report kinds the view shows, from any node (a vocabulary several node types share).
   * Without it, the view shows every report by nodes of its own type.
   */
  kinds?: readonly string[];
  component: ComponentType<NodeRunViewProps>;
}

// `@nodes` is the nodes/ folder (vite.config.ts), or a test's folder with fixture types too.
const modules = import.meta.glob<{ runView?: NodeRunView }>('@nodes/*/run-view.tsx', {
  eager: true,
});

/** The views by key: a node type's folder name, or `analytics` for the shared one. */
const RUN_VIEWS: ReadonlyMap<string, NodeRunView> = new Map([
  ...byFolder<NodeRunView>(modules, 'runView'),
  ['analytics', analyticsView] as const,
]);

/** The run view under `key` (a node type, or `analytics`), if there is one. */
export function runViewOf(key: string): NodeRunView | undefined {
  return RUN_VIEWS.get(key);
}

/** The reports the view under `key` shows. */
export function reportsFor(key: string, reports: readonly ReportView[]): ReportView[] {
  const kinds = RUN_VIEWS.get(key)?.kinds;
  return reports.filter((r) => (kinds ? kinds.includes(r.kind) : r.nodeType === key));
}

/**
 * The keys of the views that have something in this run, in the order each first got it
 * (reports, then child graphs, `graphTypes` giving the type of each graph's node): the run
 * panel's report tabs.
 */
export function reportingViews(
  reports: readonly ReportView[],
  graphTypes: readonly string[] = [],
): string[] {
  const keys = new Set<string>();
  for (const r of reports) {
    for (const [key, view] of RUN_VIEWS) {
      if (view.kinds ? view.kinds.includes(r.kind) : r.nodeType === key) keys.add(key);
    }
  }
  for (const type of graphTypes) if (RUN_VIEWS.has(type)) keys.add(type);
  return [...keys];
}
