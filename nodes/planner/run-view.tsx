/**
 * The planner's tab in the run panel ("Plans"): each plan a planner ran, its steps as they go
 * (the plan is the planner's child graph, `ctx.runGraph`), and a way to open it as a document.
 * Found like the spec (renderer/run/runViews.ts); shown only for runs in which a planner ran a
 * plan.
 */
import type { GraphNode } from '../../app/schema/document.ts';
import { readDocument } from '../../renderer/model/document.ts';
import { specHook } from '../../renderer/model/ports.ts';
import { specOf } from '../../renderer/model/registry.ts';
import type { NodeRunView, NodeRunViewProps } from '../../renderer/run/runViews.ts';
import { loadDocument, unlessUnsaved } from '../../renderer/store.ts';
import './plans.css';

/**
 * A plan's steps are its nodes that are neither run inputs nor run outputs (their specs have no
 * `runInput` or `runOutput`): the work between what the plan is given and what it answers.
 */
function isStep(node: GraphNode): boolean {
  const spec = specOf(node.type);
  return spec !== undefined && !spec.runInput && !spec.runOutput;
}

/**
 * Each plan a planner ran: its steps as they went (each with its type's summary, as on its
 * card), and a way to open it as a document.
 */
function Plans({ graphs: plans }: NodeRunViewProps) {
  if (plans.length === 0)
    return <p className="muted">No planner has run a plan in this run yet.</p>;
  return (
    <div className="plans">
      {plans.map((plan) => {
        const steps = plan.document.nodes.filter(isStep);
        return (
          <section key={plan.seq} className="plan" data-testid={`plan-${plan.instance}`}>
            <header>
              <strong>{plan.instance}</strong>{' '}
              <span className="muted">{plan.document.description ?? ''}</span>
            </header>
            <ol className="plan-steps">
              {steps.map((n) => {
                const id = String(n.id);
                const summary = specHook({ id, type: n.type, data: n.data ?? {} }, 'summary');
                const state = plan.steps[id] ?? 'waiting';
                return (
                  <li
                    key={id}
                    className={`plan-step step-${state}`}
                    data-testid={`plan-step-${id}`}
                    title={plan.skipped?.[id] ? `skipped: ${plan.skipped[id]}` : undefined}
                  >
                    <code>{id}</code> {summary} <span className="muted">{state}</span>
                  </li>
                );
              })}
            </ol>
            <button
              type="button"
              data-testid={`open-plan-${plan.instance}`}
              onClick={() =>
                unlessUnsaved('Open this plan as a document?', () => {
                  const parsed = readDocument(plan.document);
                  if (parsed.ok) loadDocument(parsed.doc);
                })
              }
            >
              Open as a document
            </button>
          </section>
        );
      })}
    </div>
  );
}

export const runView: NodeRunView = { title: 'Plans', component: Plans };
