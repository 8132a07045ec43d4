import type { ApiResult } from '../../app/api/contract.ts';
import { usd } from '../../app/costs/money.ts';
import { Modal } from '../files/Modals.tsx';
import { plural } from '../model/plural.ts';
import { useEditor } from '../store.ts';

type Estimate = ApiResult<'run.estimate'>;
type Figures = Estimate['likely'];

const close = () => useEditor.setState({ modal: null });

function Row({ label, figures, testId }: { label: string; figures: Figures; testId: string }) {
  return (
    <tr data-testid={testId}>
      <th scope="row">{label}</th>
      <td>
        {plural(figures.calls, 'call')}
        {figures.expertCalls ? ` (${figures.expertCalls} to expert models)` : ''}
      </td>
      <td>{plural(figures.tokens, 'token')}</td>
      <td>{usd(figures.costUsd)}</td>
    </tr>
  );
}

/**
 * Asked before a live run whose worst-case estimate is above the threshold in Settings: the
 * estimate (the CLI's `--estimate`, likely and worst case), and Run live or Cancel. Nothing is
 * sent before Run live. A fork, a retry from the failure or going live at an edit under a
 * replay (`upperBound` names which) sends only what its record lacks; what is left is hard to
 * estimate, so the whole run's estimate is shown and said to be an upper bound.
 */
export function LiveEstimateModal({
  estimate,
  onConfirm,
  onCancel,
  upperBound,
}: {
  estimate: Estimate;
  onConfirm: () => void;
  onCancel?: () => void;
  upperBound?: string;
}) {
  return (
    <Modal title="Run live?" testId="live-estimate">
      <p>
        {upperBound ? `${upperBound} calls` : 'This run calls'} the models with your keys. Its worst
        case is above the ${estimate.askAboveUsd.toFixed(2)} you set in Settings → Live runs:
      </p>
      {upperBound ? (
        <p className="small" data-testid="live-estimate-upper-bound">
          These are the figures of the whole run: calls its record already answers are not sent
          again, so it spends at most this, likely less.
        </p>
      ) : null}
      <table className="live-estimate" data-testid="live-estimate-table">
        <tbody>
          <Row label="likely" figures={estimate.likely} testId="live-estimate-likely" />
          <Row label="worst case" figures={estimate.worstCase} testId="live-estimate-worst" />
        </tbody>
      </table>
      {estimate.unpriced.length ? (
        <p className="muted small" data-testid="live-estimate-unpriced">
          No price for {estimate.unpriced.join(', ')}: their calls are counted, not their cost.
        </p>
      ) : null}
      <p className="muted small">
        Likely: answers fill half their max tokens. Worst case: every answer at its max tokens,
        every retry, every round.
      </p>
      <div className="row end">
        <button
          type="button"
          data-testid="live-estimate-cancel"
          onClick={() => {
            close();
            onCancel?.();
          }}
        >
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          data-testid="live-estimate-run"
          onClick={() => {
            onConfirm();
            close();
          }}
        >
          Run live
        </button>
      </div>
    </Modal>
  );
}
