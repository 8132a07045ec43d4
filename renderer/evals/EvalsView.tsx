/**
 * The Evals view: it opens over the editor (Evals in the toolbar), lists the evals the store
 * holds (`society eval` and the paper commands make them), and shows one: its table per variant,
 * its charts, and every item × variant. A click on an item opens that item's run in the debugger
 * below (transcript, votes, timeline…), as the Runs tab does; Graph also puts the run's document
 * on the canvas. An eval with a rubric gets a rating column per scale in its table, and a rating
 * panel under the item whose run is open (RatingPanel.tsx). As on the terminal, each variant is
 * compared with the first by a paired test ("vs first"), with its cost per solved item, and an
 * eval a paper's table command made shows that paper's layout (PaperTable.tsx).
 */
import { Fragment, memo, useCallback, useEffect, useState } from 'react';
import { create } from 'zustand';
import type { ApiEvalItem, ApiEvalSummary, ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { costPerSolvedText, costPerSolvedTitle, vsFirstCell } from '../model/eval-comparison.ts';
import {
  bestVariant,
  failedNote,
  type ItemOrder,
  itemScoreText,
  itemValue,
  money,
  orderedItems,
  ratingScales,
  variantIntervalText,
  variantScoreText,
} from '../model/evals.ts';
import { openRunGraph, showStoredRun } from '../run/controller.ts';
import { notify, useEditor } from '../store.ts';
import { EvalCharts } from './EvalCharts.tsx';
import { PaperTable } from './PaperTable.tsx';
import { RatingPanel } from './RatingPanel.tsx';
import './evals.css';

/** Whether the Evals view is open (it covers the editor while it is) and which eval it shows. */
export const useEvalsView = create<{ open: boolean; evalId: string | null }>()(() => ({
  open: false,
  evalId: null,
}));

export function toggleEvalsView(): void {
  useEvalsView.setState((s) => ({ open: !s.open }));
}

/** Items drawn at once; an eval of thousands shows the first ones in the order chosen. */
const MAX_ROWS = 1000;
const score = (x: number) => x.toFixed(3);
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;

function SimulatedLabel() {
  return (
    <span
      className="simulated-label"
      title="Simulated answers were scored: the numbers say nothing about a model"
    >
      simulated
    </span>
  );
}

function EvalList({ evals, shown }: { evals: ApiEvalSummary[]; shown: string | null }) {
  return (
    <ul className="evals-list" data-testid="evals-list">
      {evals.map((e) => {
        const best = bestVariant(e);
        return (
          <li key={e.evalId} className={shown === e.evalId ? 'current' : ''} data-eval={e.evalId}>
            <button
              type="button"
              data-testid="eval-open"
              onClick={() => useEvalsView.setState({ evalId: e.evalId })}
              title={`${e.document} over ${e.data}`}
            >
              <span className="evals-list-name">
                {e.name} {e.simulated ? <SimulatedLabel /> : null}
              </span>
              <span className="muted small">
                {e.status} · {e.items} item{e.items === 1 ? '' : 's'} × {e.variants.length} variant
                {e.variants.length === 1 ? '' : 's'}
              </span>
              <span className="small">
                {best
                  ? `best: ${best.name} ${score(best.score.mean)}`
                  : e.variants.some((v) => v.n > 0)
                    ? 'every run failed'
                    : 'nothing scored yet'}
              </span>
              <code className="muted small">{e.evalId}</code>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** A scale's mean rating with its n, and its interval on hover. */
function RatingCell({ rating }: { rating?: NonNullable<Variant['ratings']>[number] }) {
  if (!rating || rating.n === 0)
    return (
      <td className="num muted" data-testid="eval-rating" data-scale={rating?.scale} data-n={0}>
        –
      </td>
    );
  const ci = rating.ci95
    ? `95% interval [${rating.ci95[0].toFixed(2)}, ${rating.ci95[1].toFixed(2)}]`
    : 'one item rated';
  return (
    <td
      className="num"
      data-testid="eval-rating"
      data-scale={rating.scale}
      data-n={rating.n}
      title={`${rating.n} item${rating.n === 1 ? '' : 's'} rated · ${ci}`}
    >
      {rating.mean.toFixed(2)} <span className="muted small">n={rating.n}</span>
    </td>
  );
}

type Variant = ApiEvalSummary['variants'][number];

/** A variant against the first: the difference, p, and a mark when the test finds it significant. */
function VsFirst({ variant, index }: { variant: Variant; index: number }) {
  const cell = vsFirstCell(variant, index);
  return (
    <td
      className={`num eval-vs-first${index === 0 ? ' muted' : ''}`}
      data-testid="eval-vs-first"
      title={cell.title}
    >
      {cell.text}
      {cell.p ? <span className="muted small"> {cell.p}</span> : null}
      {cell.significant ? (
        <span className="eval-significant" title="significant: p < 0.05">
          {' '}
          *
        </span>
      ) : null}
    </td>
  );
}

function VariantTable({ summary }: { summary: ApiEvalSummary }) {
  const scales = ratingScales(summary);
  const compared = summary.variants.length > 1;
  return (
    <table className="runs eval-variants" data-testid="eval-variants">
      <thead>
        <tr>
          <th>Variant</th>
          <th className="num">n</th>
          <th className="num">Failed</th>
          <th className="num">Score</th>
          <th className="num">95% interval</th>
          {compared ? (
            <th
              className="num"
              title="Each variant's mean difference from the first, by a paired test over the same items and repeats (* is p < 0.05)"
            >
              vs first
            </th>
          ) : null}
          <th className="num">Cost</th>
          <th className="num" title="The cost divided by the runs that solved their item">
            $/solved
          </th>
          <th className="num">Tokens</th>
          <th className="num">p50</th>
          <th className="num">p95</th>
          {scales.map((s) => (
            <th key={s.id} className="num" title={s.description}>
              {s.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {summary.variants.map((v, index) => (
          <tr key={v.name} data-variant={v.name}>
            <td>{v.name}</td>
            <td className="num">{v.n}</td>
            <td className={`num${v.failed ? ' eval-failed' : ''}`}>{v.failed}</td>
            <td className={`num${v.n && v.failed >= v.n ? ' eval-failed' : ''}`}>
              {variantScoreText(v)}
            </td>
            <td className="num">{variantIntervalText(v)}</td>
            {compared ? <VsFirst variant={v} index={index} /> : null}
            <td className="num">{money(v.costUsd)}</td>
            <td className="num" data-testid="eval-cost-per-solved" title={costPerSolvedTitle(v)}>
              {costPerSolvedText(v)}
            </td>
            <td className="num">{v.tokens.toLocaleString()}</td>
            <td className="num">{seconds(v.latencyMs.p50)}</td>
            <td className="num">{seconds(v.latencyMs.p95)}</td>
            {scales.map((s) => (
              <RatingCell key={s.id} rating={v.ratings?.find((r) => r.scale === s.id)} />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ItemTable({
  summary,
  items,
  onRated,
}: {
  summary: ApiEvalSummary;
  items: ApiEvalItem[];
  onRated: () => void;
}) {
  const [variant, setVariant] = useState<string>('');
  const [order, setOrder] = useState<ItemOrder>('dataset');
  const shownRun = useEditor((s) => s.run.runId);
  const rows = orderedItems(items, { ...(variant ? { variant } : {}), order });
  // Under `--repeats` each item ran several times: a column says which run a row is.
  const repeated = (summary.repeats ?? 1) > 1 || items.some((i) => (i.repeat ?? 0) > 0);
  return (
    <div className="eval-items">
      <div className="row eval-items-tools">
        <strong>Items</strong>
        <label className="inline">
          variant
          <select
            data-testid="eval-item-variant"
            value={variant}
            onChange={(e) => setVariant(e.target.value)}
          >
            <option value="">all</option>
            {summary.variants.map((v) => (
              <option key={v.name} value={v.name}>
                {v.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          order
          <select
            data-testid="eval-item-order"
            value={order}
            onChange={(e) => setOrder(e.target.value as ItemOrder)}
          >
            <option value="dataset">as in the data</option>
            <option value="worst">lowest score first</option>
          </select>
        </label>
        <span className="muted small">
          Click an item to open its run in the debugger below
          {summary.rubric ? ' and rate it here' : ''}.
        </span>
      </div>
      <table className="runs eval-item-table" data-testid="eval-items">
        <colgroup>
          <col style={{ width: 48 }} />
          {repeated ? <col style={{ width: 56 }} /> : null}
          <col style={{ width: '10%' }} />
          <col style={{ width: 60 }} />
          <col style={{ width: 64 }} />
          <col style={{ width: '22%' }} />
          <col />
          <col style={{ width: '12%' }} />
          <col style={{ width: 76 }} />
        </colgroup>
        <thead>
          <tr>
            <th className="num">Item</th>
            {repeated ? (
              <th className="num" title="Which run of the item (each repeat has its own seed)">
                Repeat
              </th>
            ) : null}
            <th>Variant</th>
            <th className="num">Score</th>
            <th>Status</th>
            <th>Item text</th>
            <th>Prediction</th>
            <th>Reference</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, MAX_ROWS).map((i) => (
            <Fragment key={`${i.item}:${i.variant}:${i.repeat ?? 0}`}>
              <tr
                className={`eval-item${i.runId && i.runId === shownRun ? ' current' : ''}${i.runId ? ' openable' : ''}`}
                data-testid="eval-item"
                data-run={i.runId ?? ''}
                title={i.runId ? `Open run ${i.runId} in the debugger` : 'This item has no run yet'}
                onClick={() => i.runId && void showStoredRun(i.runId)}
              >
                <td className="num">
                  {/* The row opens on a click; this button lets the keyboard open it too. */}
                  <button
                    type="button"
                    className="link"
                    data-testid="eval-item-open"
                    disabled={!i.runId}
                    aria-label={`Open the run of item ${i.item + 1}${repeated ? `, repeat ${(i.repeat ?? 0) + 1}` : ''}, ${i.variant}`}
                  >
                    {i.item + 1}
                  </button>
                </td>
                {repeated ? (
                  <td className="num" data-testid="eval-item-repeat">
                    {(i.repeat ?? 0) + 1}
                  </td>
                ) : null}
                <td>{i.variant}</td>
                <td className={`num${i.status === 'failed' ? ' eval-failed' : ''}`}>
                  {itemScoreText(i)}
                </td>
                <td className={i.status === 'failed' ? 'eval-failed' : ''} title={i.error}>
                  {i.status}
                </td>
                <td className="eval-text" title={itemValue(i.label, 2000)}>
                  {itemValue(i.label, 120)}
                </td>
                <td
                  className="eval-text"
                  title={itemValue(i.status === 'failed' ? i.error : i.prediction, 2000)}
                >
                  {i.status === 'failed' ? (
                    <span className="eval-failed">{itemValue(i.error)}</span>
                  ) : (
                    itemValue(i.prediction)
                  )}
                </td>
                <td className="eval-text" title={itemValue(i.reference, 2000)}>
                  {itemValue(i.reference, 80)}
                </td>
                <td className="run-actions">
                  <button
                    type="button"
                    data-testid="eval-item-graph"
                    disabled={!i.runId}
                    onClick={(e) => {
                      e.stopPropagation();
                      if (!i.runId) return;
                      useEvalsView.setState({ open: false });
                      openRunGraph(i.runId);
                    }}
                    title="Load the graph this run ran onto the canvas, and show the run on it"
                  >
                    Graph
                  </button>
                </td>
              </tr>
              {summary.rubric && i.runId && i.runId === shownRun ? (
                <tr className="eval-rating-row">
                  <td colSpan={repeated ? 9 : 8}>
                    <RatingPanel
                      runId={i.runId}
                      rubric={summary.rubric}
                      title={`item ${i.item + 1} · ${i.variant}`}
                      onSaved={onRated}
                    />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
      {rows.length > MAX_ROWS ? (
        <p className="muted small">
          The first {MAX_ROWS} of {rows.length} are shown; `society eval-show {summary.evalId}{' '}
          --items` lists them all.
        </p>
      ) : null}
    </div>
  );
}

function EvalDetail({ evalId }: { evalId: string }) {
  const [shown, setShown] = useState<ApiResult<'evals.get'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setError(null);
    api()
      .call('evals.get', { evalId })
      .then((result) => current && setShown(result))
      .catch((e: Error) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [evalId]);
  // A rating was saved: the table's rating columns are read again.
  const onRated = useCallback(() => {
    api()
      .call('evals.get', { evalId })
      .then(setShown)
      .catch((e: Error) => notify('error', `evals: ${e.message}`));
  }, [evalId]);
  if (error) return <p className="errors">{error}</p>;
  if (!shown || shown.summary.evalId !== evalId) return <p className="muted">Loading eval…</p>;
  const { summary, items, paperTable } = shown;
  return (
    <div className="eval-detail" data-testid="eval-detail" data-eval={summary.evalId}>
      <h3>
        {summary.name} {summary.simulated ? <SimulatedLabel /> : null}
      </h3>
      <p className="muted small">
        {summary.document} over {summary.data} · {summary.items} item
        {summary.items === 1 ? '' : 's'}
        {summary.repeats ? ` × ${summary.repeats} repeats` : ''} · scorer {summary.scorer} ·{' '}
        {summary.status} · {new Date(summary.createdAt).toLocaleString()} ·{' '}
        <code>society eval-show {summary.evalId} --report FILE.html</code> writes it as a page
      </p>
      {summary.simulated ? (
        <p className="eval-banner" data-testid="eval-simulated">
          Simulated answers were scored: these numbers say nothing about any model.
        </p>
      ) : null}
      {paperTable ? <PaperTable table={paperTable} evalId={summary.evalId} /> : null}
      <VariantTable summary={summary} />
      {failedNote(summary.variants) ? (
        <p className="muted small" data-testid="eval-failed-note">
          {failedNote(summary.variants)}
        </p>
      ) : null}
      {summary.variants.length ? <EvalCharts summary={summary} /> : null}
      <ItemTable summary={summary} items={items} onRated={onRated} />
    </div>
  );
}

function EvalsBody() {
  const [evals, setEvals] = useState<ApiEvalSummary[] | null>(null);
  const evalId = useEvalsView((s) => s.evalId);
  const load = useCallback(
    () =>
      api()
        .call('evals.list', { limit: 100 })
        .then((list) => {
          setEvals(list);
          const chosen = useEvalsView.getState().evalId;
          if (list.length && !list.some((e) => e.evalId === chosen))
            useEvalsView.setState({ evalId: list[0]!.evalId });
        })
        .catch((e: Error) => notify('error', `evals: ${e.message}`)),
    [],
  );
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <>
      <div className="evals-status small">
        <button type="button" data-testid="evals-refresh" onClick={() => void load()}>
          Refresh
        </button>{' '}
        <span className="muted">
          Evals run from the command line: <code>society eval FILE --data DATA …</code>
        </span>
      </div>
      {evals === null ? (
        <p className="muted evals-empty">Loading evals…</p>
      ) : evals.length === 0 ? (
        <p className="muted evals-empty" data-testid="evals-none">
          No evals stored yet. Run one with{' '}
          <code>society eval FILE --data DATA --expect FIELD</code>; it appears here with its table,
          charts and items.
        </p>
      ) : (
        <div className="evals-split">
          <aside className="evals-side">
            <EvalList evals={evals} shown={evalId} />
          </aside>
          <section className="evals-main">
            {evalId ? <EvalDetail key={evalId} evalId={evalId} /> : null}
          </section>
        </div>
      )}
    </>
  );
}

function EvalsViewPanel() {
  const open = useEvalsView((s) => s.open);
  if (!open) return null;
  return (
    <section className="evals-view" data-testid="evals-view" aria-label="Evals">
      <header className="evals-header">
        <h2>Evals</h2>
        <span className="muted small">a society run over a dataset, scored per variant</span>
        <span className="spacer" />
        <button
          type="button"
          className="icon"
          aria-label="Close the Evals view"
          data-testid="evals-close"
          onClick={() => useEvalsView.setState({ open: false })}
        >
          ×
        </button>
      </header>
      <EvalsBody />
    </section>
  );
}

export const EvalsView = memo(EvalsViewPanel);
