/**
 * The rating panel of the Evals view: under the item whose run is open, one row per scale of the
 * eval's rubric (its label, what a rater judges, a choice from the rubric's range), the rater's
 * name (remembered in this browser), a note, and Save. Saving stores the scores with the run
 * (`ratings.put`, checked against the rubric by the backend) and refreshes the eval's table.
 */
import { useEffect, useRef, useState } from 'react';
import type { ApiEvalSummary } from '../../app/api/contract.ts';
import type { ApiRating } from '../../app/api/ratings-contract.ts';
import { api } from '../api.ts';

type Rubric = NonNullable<ApiEvalSummary['rubric']>;

/** Where the rater's name is kept between sessions (a name, never anything secret). */
const RATER_KEY = 'society.rater';

function rememberedRater(): string {
  try {
    return localStorage.getItem(RATER_KEY) ?? '';
  } catch {
    return '';
  }
}

function rememberRater(name: string): void {
  try {
    localStorage.setItem(RATER_KEY, name);
  } catch {
    // A page without storage (a locked-down profile) asks for the name again next time.
  }
}

/**
 * The rater's own stored scores and note of the whole run, to start the panel from (ratings of
 * one agent of it, from `society rate --agent` or a rating sheet, are not what this panel rates).
 */
function ownRatings(ratings: readonly ApiRating[], rater: string) {
  const mine = ratings.filter((r) => r.rater === rater && r.agent === undefined);
  return {
    scores: Object.fromEntries(mine.map((r) => [r.scale, r.score])) as Record<string, number>,
    note: mine.find((r) => r.note)?.note ?? '',
  };
}

export function RatingPanel({
  runId,
  rubric,
  title,
  onSaved,
}: {
  runId: string;
  rubric: Rubric;
  /** What is rated, as `item 3 · full`. */
  title: string;
  onSaved: () => void;
}) {
  const [rater, setRater] = useState(rememberedRater);
  const raterNow = useRef(rater);
  raterNow.current = rater;
  const [scores, setScores] = useState<Record<string, number>>({});
  const [note, setNote] = useState('');
  const [stored, setStored] = useState<ApiRating[] | null>(null);
  const [status, setStatus] = useState<{ kind: 'saved' | 'error'; text: string } | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let current = true;
    api()
      .call('ratings.list', { runId })
      .then((result) => {
        if (!current) return;
        setStored(result.ratings);
        const own = ownRatings(result.ratings, raterNow.current.trim());
        setScores(own.scores);
        setNote(own.note);
      })
      .catch((e: Error) => current && setStatus({ kind: 'error', text: e.message }));
    return () => {
      current = false;
    };
  }, [runId]);

  const name = rater.trim();
  const chosen = Object.keys(scores).length;
  const save = async () => {
    setSaving(true);
    setStatus(null);
    try {
      const result = await api().call('ratings.put', {
        runId,
        rater: name,
        scores,
        ...(note.trim() ? { note: note.trim() } : {}),
      });
      rememberRater(name);
      setStored(result.ratings);
      setStatus({
        kind: 'saved',
        text: `Saved ${chosen} score${chosen === 1 ? '' : 's'} as ${name}`,
      });
      onSaved();
    } catch (e) {
      setStatus({ kind: 'error', text: (e as Error).message });
    } finally {
      setSaving(false);
    }
  };
  const others = [...new Set((stored ?? []).map((r) => r.rater))].filter((r) => r !== name);
  const choices = Array.from({ length: rubric.max - rubric.min + 1 }, (_, i) => rubric.min + i);

  return (
    <section
      className="rating-panel"
      data-testid="rating-panel"
      data-run={runId}
      aria-label="Rate this item"
    >
      <div className="row rating-head">
        <strong>Rate {title}</strong>
        <span className="muted small">
          rubric {rubric.name}: {rubric.min} (least) to {rubric.max} (most)
          {others.length ? ` · also rated by ${others.join(', ')}` : ''}
        </span>
      </div>
      {rubric.scales.map((scale) => (
        <fieldset
          key={scale.id}
          className="rating-scale"
          data-testid="rating-scale"
          data-scale={scale.id}
        >
          <legend>
            <strong>{scale.label}</strong> <span className="muted small">{scale.description}</span>
          </legend>
          <div className="rating-choices">
            {choices.map((value) => (
              <label key={value} className={scores[scale.id] === value ? 'chosen' : ''}>
                <input
                  type="radio"
                  name={`rating-${runId}-${scale.id}`}
                  value={value}
                  checked={scores[scale.id] === value}
                  onChange={() => setScores((s) => ({ ...s, [scale.id]: value }))}
                  aria-label={`${scale.label}: ${value}`}
                />
                {value}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      <div className="row rating-foot">
        <label className="inline">
          Rater
          <input
            data-testid="rating-rater"
            value={rater}
            maxLength={80}
            placeholder="your name"
            onChange={(e) => setRater(e.target.value)}
          />
        </label>
        <label className="inline rating-note">
          Note
          <input
            data-testid="rating-note"
            value={note}
            maxLength={2000}
            placeholder="optional"
            onChange={(e) => setNote(e.target.value)}
          />
        </label>
        <button
          type="button"
          className="primary"
          data-testid="rating-save"
          disabled={saving || !name || chosen === 0}
          title={!name ? 'Type your name first' : chosen === 0 ? 'Choose a score first' : undefined}
          onClick={() => void save()}
        >
          Save
        </button>
        {status ? (
          <span
            data-testid="rating-status"
            className={status.kind === 'error' ? 'eval-failed small' : 'muted small'}
            role="status"
          >
            {status.text}
          </span>
        ) : null}
      </div>
    </section>
  );
}
