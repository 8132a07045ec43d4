/**
 * The run panel: the run bar (status, breakpoints) over one tab at a time, each tab its own
 * component in this folder or a run view of what nodes reported (a node type's `run-view.tsx`,
 * the Votes tab among them, or the shared Analytics view: runViews.ts), shown only when the run
 * has its reports, with the paused run's controls in a pane beside the tabs. The panel's own
 * tabs beyond Inputs, Transcript, Problems and Runs show once the run has their data (tabs.ts).
 */
import { useShallow } from 'zustand/react/shallow';
import { type RunTab, useEditor } from '../store.ts';
import { ContextViewer } from './ContextViewer.tsx';
import { CreditView } from './CreditView.tsx';
import { DiffView } from './DiffView.tsx';
import { useDebug } from './debugState.ts';
import { EventLog } from './EventLog.tsx';
import { ForkForm, History } from './History.tsx';
import { InputsForm } from './InputsForm.tsx';
import { Outputs } from './Outputs.tsx';
import { PanelResizer } from './PanelResizer.tsx';
import { PausedPane } from './PausedPane.tsx';
import { Problems } from './Problems.tsx';
import { RunBar } from './RunBar.tsx';
import { reportingViews, reportsFor, runViewOf } from './runViews.ts';
import { Timeline } from './Timeline.tsx';
import { Transcript } from './Transcript.tsx';
import { tabShown } from './tabs.ts';
import { UsagePanel } from './UsagePanel.tsx';
import './run.css';

/** The panel's own tabs; the run views' tabs go after Context. */
const TABS: Array<{ id: RunTab; label: string }> = [
  { id: 'inputs', label: 'Inputs' },
  { id: 'transcript', label: 'Transcript' },
  { id: 'context', label: 'Context' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'usage', label: 'Usage' },
  { id: 'outputs', label: 'Outputs' },
  { id: 'credit', label: 'Credit' },
  { id: 'events', label: 'Events' },
  { id: 'problems', label: 'Problems' },
  { id: 'runs', label: 'Runs' },
  { id: 'diff', label: 'Diff' },
];

export function RunPanel() {
  const tab = useEditor((s) => s.runTab);
  const counts = useEditor(
    useShallow((s) => ({
      messages: s.run.messages.length,
      problems: s.problems?.length ?? 0,
    })),
  );
  const data = useEditor(
    useShallow((s) => ({
      instances: Object.keys(s.run.instances).length,
      replicas: Object.keys(s.run.instances).filter((id) => /#\d/.test(id)).length,
      calls: s.run.usage.calls,
      outputs: s.run.outputs !== null,
      events: s.run.log.length,
    })),
  );
  const comparing = useDebug((s) => s.diff !== null);
  const reports = useEditor((s) => s.run.reports);
  const graphs = useEditor((s) => s.run.plans);
  // The type of the node that ran each child graph, from its start.
  const graphTypes = useEditor(
    useShallow((s) => s.run.plans.map((p) => s.run.instances[p.instance]?.nodeType ?? '')),
  );
  const graphsOf = (type: string) => graphs.filter((_, i) => graphTypes[i] === type);
  const viewTabs = reportingViews(reports, graphTypes).map((key) => ({
    id: `report:${key}` as const,
    label: runViewOf(key)?.title ?? key,
    // Analytics come by the hundred: its tab carries no count.
    count: key === 'analytics' ? 0 : reportsFor(key, reports).length + graphsOf(key).length,
  }));
  const own = TABS.filter((t) => tabShown(t.id, { ...data, diff: comparing }, tab));
  // The run views' tabs go after Context, or after Transcript while Context is not shown.
  const ownAt =
    own.findIndex((t) => t.id === 'context') + 1 || own.findIndex((t) => t.id === 'transcript') + 1;
  const tabs = [...own.slice(0, ownAt), ...viewTabs, ...own.slice(ownAt)];
  const shownKey = tab.startsWith('report:') ? tab.slice('report:'.length) : undefined;
  const ShownView = shownKey === undefined ? undefined : runViewOf(shownKey)?.component;
  const badge = (id: RunTab) =>
    id.startsWith('report:')
      ? (viewTabs.find((t) => t.id === id)?.count ?? 0)
      : id === 'transcript'
        ? counts.messages
        : id === 'problems'
          ? counts.problems
          : 0;
  return (
    <section className="run-panel" aria-label="Run">
      <PanelResizer />
      <RunBar />
      <div className="run-split">
        <div className="run-tabs">
          <div className="tabs" role="tablist">
            {tabs.map((t) => (
              <button
                key={t.id}
                type="button"
                role="tab"
                aria-selected={tab === t.id}
                className={tab === t.id ? 'active' : ''}
                data-testid={`run-tab-${t.id}`}
                onClick={() => useEditor.setState({ runTab: t.id })}
              >
                {t.label}
                {badge(t.id) ? <span className="count">{badge(t.id)}</span> : null}
              </button>
            ))}
          </div>
          <div
            className="run-body"
            role="tabpanel"
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a tab panel is focusable (WAI-ARIA tabs), so the keyboard can scroll one with nothing else to focus (the events)
            tabIndex={0}
            aria-label={tabs.find((t) => t.id === tab)?.label ?? 'Run'}
          >
            <ForkForm />
            {tab === 'inputs' ? <InputsForm /> : null}
            {tab === 'transcript' ? <Transcript /> : null}
            {tab === 'context' ? <ContextViewer /> : null}
            {tab === 'timeline' ? <Timeline /> : null}
            {tab === 'usage' ? <UsagePanel /> : null}
            {tab === 'outputs' ? <Outputs /> : null}
            {tab === 'credit' ? <CreditView /> : null}
            {tab === 'events' ? <EventLog /> : null}
            {tab === 'problems' ? <Problems /> : null}
            {tab === 'runs' ? <History /> : null}
            {tab === 'diff' ? <DiffView /> : null}
            {ShownView && shownKey ? (
              <ShownView reports={reportsFor(shownKey, reports)} graphs={graphsOf(shownKey)} />
            ) : null}
          </div>
        </div>
        <PausedPane />
      </div>
    </section>
  );
}
