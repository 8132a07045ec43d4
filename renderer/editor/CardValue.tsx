/**
 * A node's latest value on its card, after a run and while one is paused: the node type's own
 * summary (`NodeView.value`) or the generic one (renderer/model/cardValue.ts). Each card reads
 * only its own entry of the run's values (useCardSummary), so an event re-renders the cards whose
 * value changed, not every card. Hidden at the canvas's lowest level of detail (card-value.css).
 */
import { memo, useEffect, useMemo, useState } from 'react';
import { copyOf, fewWords, isLong, summarizeValue, type ValueSummary } from '../model/cardValue.ts';
import { runPrefix } from '../model/library.ts';
import type { NodeValue } from '../model/run.ts';
import { fetchBlob } from '../run/Outputs.tsx';
import { type EditorState, useEditor } from '../store.ts';
import { viewOf } from './nodeViews.ts';
import './card-value.css';

/** The node's entry in the run's values, found as its run state is (with an opened society's prefix). */
function nodeValue(s: EditorState, id: string): NodeValue | undefined {
  const prefix = runPrefix(s.path);
  return prefix === null ? undefined : s.run.values[`${prefix}${id}`];
}

/** A node's latest value and its summary as its card shows it. */
export interface CardSummary {
  value: NodeValue;
  summary: ValueSummary;
}

/**
 * The node's latest value summarized once per value (the card's value row and its zoomed-out
 * few words both read it), or undefined before a run gave it one. The node type's own summary
 * (`NodeView.value`) reads the node's parsed data, when it is valid.
 */
export function useCardSummary(
  id: string,
  type: string,
  data: Record<string, unknown> | undefined,
): CardSummary | undefined {
  const value = useEditor((s) => nodeValue(s, id));
  return useMemo(() => {
    if (!value) return undefined;
    const summary = summarizeValue(value, data, value.held ? undefined : viewOf(type)?.value);
    return summary ? { value, summary } : undefined;
  }, [value, data, type]);
}

/**
 * The node's latest value in a few words, for its card zoomed out (`data-lod-value`, lod.css),
 * or undefined before a run gave it one.
 */
export function fewWordsOf(card: CardSummary | undefined): string | undefined {
  return card ? fewWords(card.summary) : undefined;
}

interface CardValueProps {
  id: string;
  /** The node's value and its summary (useCardSummary). */
  card: CardSummary;
  /** How many copies a replicated node has, or undefined. */
  copies?: number;
  /**
   * One line, for a card inside a container, whose members sit close together: a taller card
   * would cover the one below it.
   */
  compact?: boolean;
}

function CardValueView({ id, card, copies, compact = false }: CardValueProps) {
  const { value, summary } = card;
  const copy = copyOf(value.instance, id, copies);
  return (
    <div
      className={`card-value${value.held ? ' held' : ''}${compact ? ' compact' : ''}`}
      data-testid={`value-${id}`}
      data-kind={summary.kind}
    >
      {value.held || copy ? (
        <div className="card-value-meta">
          {value.held ? <span className="card-value-held">held, not delivered</span> : null}
          {copy ? (
            <span data-testid={`value-copy-${id}`} title={value.instance}>
              copy {copy.index + 1} of {copy.of}
            </span>
          ) : null}
        </div>
      ) : null}
      <Summary id={id} summary={summary} compact={compact} />
    </div>
  );
}

function Summary({
  id,
  summary,
  compact,
}: {
  id: string;
  summary: ValueSummary;
  compact: boolean;
}) {
  const label =
    summary.label !== undefined ? <span className="card-value-label">{summary.label}</span> : null;
  switch (summary.kind) {
    case 'choice':
      return (
        <div className="card-value-choice" data-testid={`value-choice-${id}`}>
          {label} <strong>{summary.value}</strong>
          {summary.detail ? <span className="card-value-detail"> · {summary.detail}</span> : null}
        </div>
      );
    case 'text':
    case 'json':
      return (
        <>
          {label}
          <ClippedText
            id={id}
            text={summary.text}
            json={summary.kind === 'json'}
            compact={compact}
          />
        </>
      );
    case 'list':
      return (
        <div className="card-value-list">
          {label} {summary.count} item{summary.count === 1 ? '' : 's'}
          {summary.count > 0 ? (
            <span className="card-value-detail" title={summary.first}>
              {' '}
              · first: {summary.first}
            </span>
          ) : null}
        </div>
      );
    case 'image':
      return (
        <>
          {label}
          <Thumbnail id={id} hash={summary.hash} mime={summary.mime} />
        </>
      );
  }
}

/** Text clipped to about three lines (one when compact), with a toggle to read it all. */
function ClippedText({
  id,
  text,
  json,
  compact,
}: {
  id: string;
  text: string;
  json: boolean;
  compact: boolean;
}) {
  const [open, setOpen] = useState(false);
  const long = isLong(text, compact ? 1 : undefined);
  return (
    <>
      <div
        className={`card-value-text${json ? ' json' : ''}${open ? ' open nowheel' : ''}`}
        data-testid={`value-text-${id}`}
      >
        {text}
      </div>
      {long ? (
        <button
          type="button"
          className="link small card-value-toggle nodrag"
          data-testid={`value-toggle-${id}`}
          aria-expanded={open}
          onClick={(e) => {
            e.stopPropagation();
            setOpen(!open);
          }}
        >
          {open ? 'show less' : 'show all'}
        </button>
      ) : null}
    </>
  );
}

/** An image the node gave, fetched from the run's files once and shown small. */
function Thumbnail({ id, hash, mime }: { id: string; hash: string; mime: string }) {
  const runId = useEditor((s) => s.run.runId);
  const [url, setUrl] = useState<string | null>(null);
  const image = mime.startsWith('image/');
  useEffect(() => {
    if (!runId || !image) return;
    let current = true;
    let made: string | null = null;
    fetchBlob(runId, hash)
      .then((blob) => {
        if (!current) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => {});
    return () => {
      current = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [runId, hash, image]);
  if (!image) return <div className="card-value-text">{mime}</div>;
  return url ? (
    <img
      className="card-value-image"
      data-testid={`value-image-${id}`}
      src={url}
      alt={`${id}'s output`}
    />
  ) : (
    <div className="card-value-detail">image…</div>
  );
}

export const CardValue = memo(CardValueView);
