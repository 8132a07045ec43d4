/**
 * What the run and debug panels remember between renders that is not part of the document or
 * the run itself: the edit of the message the run is held at (sent before the run goes on),
 * which agent the context viewer shows, and the two runs being compared.
 */
import { create } from 'zustand';
import type { ApiRunDiff } from '../../app/api/contract.ts';

export interface HeldDraft {
  /** The run and checkpoint it was written for (`runId:instance`): a draft never moves. */
  key: string;
  instance: string;
  /** The text as held, and as edited. */
  original: string;
  text: string;
  /** Sent with run.editHeld. */
  applied: boolean;
}

export interface DebugState {
  draft: HeldDraft | null;
  /** The instance the context viewer shows (null: choose one), and a chosen call. */
  contextInstance: string | null;
  contextCall: string | null;
  /** Runs ticked in the history for comparing, oldest pick first. */
  picked: string[];
  diff: ApiRunDiff | null;
  /** The fork being written: of which run, whose message, the new text. */
  fork: ForkDraft | null;
}

export interface ForkDraft {
  runId: string;
  instance: string;
  text: string;
  /** New calls go to the simulated provider (labelled) instead of live models. */
  simulate: boolean;
}

export const useDebug = create<DebugState>()(() => ({
  draft: null,
  contextInstance: null,
  contextCall: null,
  picked: [],
  diff: null,
  fork: null,
}));
