/**
 * Node types may show what they report (`NodeContext.report`) in a run-panel tab of their own:
 * an optional `nodes/<type>/run-view.tsx` exporting `runView` (a `NodeRunView`) is found at
 * build time, like the specs and `view.tsx`, so a node type adds its tab by adding a file to
 * its folder. The tab shows only for a run in which nodes of that type reported something.
 */
import type { ComponentType } from 'react';
import type { PlanView, ReportView } from '../model/run.ts';

/**
 * What a node type's run view is given: the run's reports by nodes of that type, and the graphs
 * they ran as their children (`ctx.runGraph`, a planner's plans), each in order.
 */
export interface NodeRunViewProps {
  reports: readonly ReportView[];
  graphs: readonly PlanView[];
}

/** What a node type's `run-view.tsx` exports as `runView`. */
export interface NodeRunView {
  /** The tab's label. */
  title: string;
  component: ComponentType<NodeRunViewProps>;
}

// `@nodes` is the nodes/ folder (vite.config.ts), or a test's folder with fixture types too.
const modules = import.meta.glob<{ runView?: NodeRunView }>('@nodes/*/run-view.tsx', {
  eager: true,
});

const RUN_VIEWS: ReadonlyMap<string, NodeRunView> = new Map(
  Object.entries(modules)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, mod]) => {
      const folder = /([^/]+)\/run-view\.tsx$/.exec(path)?.[1];
      return folder && mod.runView ? [[folder, mod.runView] as const] : [];
    }),
);

/** The run view a node type ships, if it ships one. */
export function runViewOf(type: string): NodeRunView | undefined {
  return RUN_VIEWS.get(type);
}

/**
 * The node types with a run view whose nodes reported in this run, in the order each first
 * reported, then those whose nodes only ran child graphs (`graphTypes`, the type of each
 * graph's node): the run panel's node tabs.
 */
export function reportingTypes(
  reports: readonly ReportView[],
  graphTypes: readonly string[] = [],
): string[] {
  return [...new Set([...reports.map((r) => r.nodeType), ...graphTypes])].filter((type) =>
    RUN_VIEWS.has(type),
  );
}
