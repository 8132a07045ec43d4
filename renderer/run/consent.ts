/**
 * What the page asks before the backend spends money or a replay leaves its cassette, and the
 * ways forward it offers when a run is refused before it starts:
 * - a live call above the threshold in Settings → Live runs (Run live, a live fork, a retry from
 *   the failure, going live at an edit under a replay): the backend refuses it (reason `spend`)
 *   until the person has seen the estimate in the Run live dialog and agreed;
 * - a key that is not set (reason `missing-keys`): Settings → Keys, or Run simulated;
 * - a document whose own budget is below its likely estimate (reason `budget`): raise it in the
 *   document's settings, or run anyway and stop at the budget;
 * - an edit under a cassette replay: the calls after it cannot come from the cassette, so the
 *   person says first whether to simulate the rest, go live, or cancel the edit (the terminal
 *   debugger's s/l/c).
 */
import type { ApiResult } from '../../app/api/contract.ts';
import { ApiError } from '../api.ts';
import { type NoticeAction, notify, useEditor } from '../store.ts';
import { withHostsConsent } from './hosts-consent.ts';

type Estimate = ApiResult<'run.estimate'>;

/**
 * Makes `call` without consent; when the backend refuses it for its estimate, shows the Run live
 * dialog with `estimate()` and makes it again once the person agrees. Null when they cancel.
 * `upperBound` names what sends live calls from a stored run: the dialog then says the figures
 * are the whole run's, an upper bound.
 */
export async function withSpendConsent<T>(
  call: (costConfirmed: boolean) => Promise<T>,
  estimate: () => Promise<Estimate>,
  upperBound?: string,
): Promise<T | null> {
  try {
    return await call(false);
  } catch (error) {
    if (!(error instanceof ApiError) || error.reason !== 'spend') throw error;
  }
  const figures = await estimate();
  const agreed = await new Promise<boolean>((resolve) => {
    const modal = {
      kind: 'live-estimate' as const,
      estimate: figures,
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      ...(upperBound ? { upperBound } : {}),
    };
    useEditor.setState({ modal });
    // Closed any other way (Escape, ×, another dialog) is a no. Run live answers first.
    const stop = useEditor.subscribe((s) => {
      if (s.modal === modal) return;
      stop();
      resolve(false);
    });
  });
  return agreed ? call(true) : null;
}

/** What the person is asked about before a run (or a fork, a retry) starts. */
export interface StartChecks {
  /** The live estimate shown when the run costs more than the threshold. */
  estimate: () => Promise<Estimate>;
  /** The origins the run contacts, asked about when some are not allowed. */
  hosts: () => Promise<ApiResult<'run.hosts'>>;
  /** See `withSpendConsent`: the run sends only what a stored run's record lacks. */
  upperBound?: string;
}

/**
 * Starts something that may be refused for its hosts and then for its cost: asks about the
 * hosts first (`withHostsConsent`), then about the money (`withSpendConsent`), making the call
 * again after each yes. Null when the person says no to either.
 */
export function withStartConsent<T>(
  call: (costConfirmed: boolean) => Promise<T>,
  checks: StartChecks,
  asking?: (waiting: boolean) => void,
): Promise<T | null> {
  return withHostsConsent(
    () => withSpendConsent(call, checks.estimate, checks.upperBound),
    checks.hosts,
    asking,
  );
}

/** Opens Settings on its Keys part. */
export const openKeys = (): void => useEditor.setState({ modal: { kind: 'keys' } });

/**
 * Says why a run was not started (after `lead`), with the buttons that lead on when there are some: for a
 * missing key, Settings → Keys and `simulated` (Run simulated); for a budget the run cannot
 * meet, the document's settings and `anyway` (run again, stopping at the budget).
 */
export function refusalNotice(
  lead: string,
  error: ApiError,
  ways: { simulated?: () => void; anyway?: () => void } = {},
): void {
  const actions: NoticeAction[] = [];
  if (error.reason === 'missing-keys') {
    actions.push({ label: 'Open Settings → Keys', testId: 'notice-open-keys', run: openKeys });
    if (ways.simulated)
      actions.push({ label: 'Run simulated', testId: 'notice-run-simulated', run: ways.simulated });
  }
  if (error.reason === 'budget') {
    actions.push({
      label: 'Open document settings',
      testId: 'notice-document-settings',
      run: () => useEditor.setState({ inspectorTab: 'document' }),
    });
    if (ways.anyway)
      actions.push({
        label: 'Run anyway (stops at the budget)',
        testId: 'notice-run-anyway',
        run: ways.anyway,
      });
  }
  notify('error', `${lead}: ${error.message}`, actions);
}

/** How the calls after an edit under a replay are answered, or null to cancel the edit. */
export type BeyondCassette = 'simulated' | 'live';

/**
 * Asks, at an edit under a cassette replay, how the calls the cassette will lack are answered.
 * Dismissing the notice cancels the edit.
 */
export function askBeyondCassette(what: string): Promise<BeyondCassette | null> {
  return new Promise((resolve) => {
    notify(
      'error',
      `This run replays a cassette: after editing ${what}, later calls cannot come from the cassette.`,
      [
        {
          label: 'Simulate the rest',
          testId: 'notice-beyond-simulated',
          run: () => resolve('simulated'),
        },
        { label: 'Go live', testId: 'notice-beyond-live', run: () => resolve('live') },
        { label: 'Cancel the edit', testId: 'notice-beyond-cancel', run: () => resolve(null) },
      ],
      () => resolve(null),
    );
  });
}
