/**
 * The context view's Ask box: a question put to the agent shown, in its context at that call
 * (run.interview), answered by its own model profile in the backend; the page never sees a key.
 * Answers are side calls, marked as such: kept apart from the run, which they never change.
 */
import { type FormEvent, useEffect, useState } from 'react';
import type { ApiInterview } from '../../app/api/interview-contract.ts';
import { api } from '../api.ts';
import './ask.css';

export function AskMember({ runId, instance }: { runId: string; instance: string }) {
  const [asked, setAsked] = useState<ApiInterview[]>([]);
  const [question, setQuestion] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    api()
      .call('run.interviews', { runId })
      .then((all) => current && setAsked(all.filter((a) => a.instance === instance)))
      .catch(() => current && setAsked([]));
    return () => {
      current = false;
    };
  }, [runId, instance]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!question.trim() || busy) return;
    setBusy(true);
    setError(null);
    api()
      .call('run.interview', { runId, instance, question })
      .then((record) => {
        setAsked((list) => [...list, record]);
        setQuestion('');
      })
      .catch((err: Error) => setError(err.message))
      .finally(() => setBusy(false));
  };

  return (
    <section className="ask-member" data-testid="ask-member" aria-label={`Ask ${instance}`}>
      <form className="ask-form" onSubmit={submit}>
        <label className="ask-label" htmlFor="ask-question">
          Ask <code>{instance}</code> in its context at this call
        </label>
        <div className="row">
          <input
            id="ask-question"
            data-testid="ask-question"
            value={question}
            placeholder="Why did you say that?"
            onChange={(e) => setQuestion(e.target.value)}
          />
          <button type="submit" data-testid="ask-submit" disabled={busy || !question.trim()}>
            {busy ? 'Asking…' : 'Ask'}
          </button>
        </div>
        <p className="muted small">
          A side call: recorded apart from the run, it never changes the run's outputs or later
          calls.
        </p>
      </form>
      {error ? <p className="run-error-text">{error}</p> : null}
      {asked.length > 0 ? (
        <ol className="ask-answers">
          {asked.map((a) => (
            <li key={a.id} className="ask-answer" data-testid="ask-answer">
              <div className="context-message-head">
                <span className="side-call-label">side call</span>
                <span className="muted small">
                  {a.simulated ? `in place of ${a.model}` : `${a.provider} ${a.model}`} ·{' '}
                  {a.promptTokens.toLocaleString()} + {a.completionTokens.toLocaleString()} tokens ·
                  call {a.callId}
                </span>
                {a.simulated ? <span className="simulated-label">simulated</span> : null}
              </div>
              <p className="ask-q">
                <strong>Q:</strong> {a.question}
              </p>
              <pre className={`context-text${a.simulated ? ' simulated' : ''}`}>{a.answer}</pre>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
