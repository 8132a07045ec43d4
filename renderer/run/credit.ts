/**
 * The Credit tab's state and its one action: credit a finished run (`runs.credit`), each member
 * left out in a fork of it made by the backend. Results are kept per run for the session, so
 * opening a member's fork and coming back shows the table again. A live credit asks first, as a
 * live fork does (hosts, then the estimate above the threshold); a simulated run's needs neither.
 */
import { create } from 'zustand';
import type { ApiResult } from '../../app/api/contract.ts';
import { ApiError, api } from '../api.ts';
import { notify } from '../store.ts';
import { refusalNotice, withStartConsent } from './consent.ts';

export type CreditResult = ApiResult<'runs.credit'>;

/** How a credit is scored: nothing, or the run's own score (the number in one output). */
export interface CreditChoice {
  /** The output compared with the run's; default its first. */
  output?: string;
  /** The output holding the run's own score (a metric node's). */
  scoreOutput?: string;
}

interface CreditState {
  /** Each credited run's table, by the run's id. */
  results: Record<string, CreditResult>;
  /** The run being credited now, if one is. */
  pending: string | null;
}

export const useCredit = create<CreditState>(() => ({ results: {}, pending: null }));

/** The credit whose fork `runId` is, with the member that fork leaves out. */
export function creditOfFork(
  results: Record<string, CreditResult>,
  runId: string,
): { credit: CreditResult; member: string } | undefined {
  for (const credit of Object.values(results)) {
    const row = credit.members.find((m) => m.runId === runId);
    if (row) return { credit, member: row.member };
  }
  return undefined;
}

/**
 * Credits `runId`'s members. `simulated` is whether the run's answers were (a simulated run, or
 * a replay of a simulated cassette): then the forks' new calls are simulated too.
 */
export async function creditRun(
  runId: string,
  simulated: boolean,
  choice: CreditChoice = {},
): Promise<CreditResult | null> {
  if (useCredit.getState().pending) return null;
  useCredit.setState({ pending: runId });
  try {
    const result = await withStartConsent(
      (costConfirmed) =>
        api().call('runs.credit', { runId, ...choice, simulate: simulated, costConfirmed }),
      {
        estimate: () => api().call('runs.estimate', { runId }),
        hosts: () => api().call('runs.hosts', { runId }),
        upperBound: "Each of the credit's live forks",
      },
    );
    if (result) useCredit.setState((s) => ({ results: { ...s.results, [runId]: result } }));
    return result;
  } catch (error) {
    if (error instanceof ApiError && error.reason) refusalNotice('Credit was not started', error);
    else notify('error', `credit: ${(error as Error).message}`);
    return null;
  } finally {
    useCredit.setState({ pending: null });
  }
}

/** What a member's bar measures, from 0 to 1: its score Δ against the largest, else whether the output changed. */
export function influenceOf(row: CreditResult['members'][number], largest: number): number {
  if (row.error) return 0;
  if (row.scoreDelta !== undefined) return largest > 0 ? Math.abs(row.scoreDelta) / largest : 0;
  return row.outputChanged ? 1 : 0;
}
