import { readDocument } from '../model/document.ts';
import { loadDocument, unlessUnsaved, useEditor } from '../store.ts';

/** Each plan a planner ran: its steps as they went, and a way to open it as a document. */
export function Plans() {
  const plans = useEditor((s) => s.run.plans);
  if (plans.length === 0)
    return <p className="muted">No planner has run a plan in this run yet.</p>;
  return (
    <div className="plans">
      {plans.map((plan) => {
        const steps = plan.document.nodes.filter((n) => n.type === 'expert');
        return (
          <section key={plan.seq} className="plan" data-testid={`plan-${plan.instance}`}>
            <header>
              <strong>{plan.instance}</strong>{' '}
              <span className="muted">{plan.document.description ?? ''}</span>
            </header>
            <ol className="plan-steps">
              {steps.map((n) => {
                const id = String(n.id);
                const data = (n.data ?? {}) as { module?: string; backend?: string };
                const state = plan.steps[id] ?? 'waiting';
                return (
                  <li
                    key={id}
                    className={`plan-step step-${state}`}
                    data-testid={`plan-step-${id}`}
                  >
                    <code>{id}</code> {data.module}
                    {data.backend === 'local' ? <span className="muted"> (local)</span> : null}{' '}
                    <span className="muted">{state}</span>
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
