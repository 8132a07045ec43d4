/**
 * What the run and debug panels remember between renders that is not part of the document or
 * the run itself: the edit of the message the run is held at (sent before the run goes on),
 * which agent the context viewer shows, and the two runs being compared.
 */
import { create } from 'zustand';
import type { ApiRunDiff } from '../../app/api/contract.ts';
import { runNodeId } from '../model/library.ts';
import { type EditorState, useEditor } from '../store.ts';

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
  /** The canvas selection changed since the run was last held: the context follows it. */
  selectionFirst: boolean;
  /** Runs ticked in the history for comparing, oldest pick first. */
  picked: string[];
  diff: ApiRunDiff | null;
  /** The fork being written: of which run, whose message, the new text. */
  fork: ForkDraft | null;
  /** What is wrong with each Inputs field the last Run was refused for, by input name. */
  inputProblems: Record<string, string>;
}

export interface ForkDraft {
  runId: string;
  instance: string;
  text: string;
  /** New calls go to the simulated provider (labelled) instead of live models. */
  simulate: boolean;
  /** Counts the drafts opened, so a new one (another message's edit & fork) takes the focus. */
  opened?: number;
}

export const useDebug = create<DebugState>()(() => ({
  draft: null,
  contextInstance: null,
  contextCall: null,
  selectionFirst: false,
  picked: [],
  diff: null,
  fork: null,
  inputProblems: {},
}));

/** The one node selected on the canvas, or null. */
export function selectedNodeOf(state: EditorState): string | null {
  let found: string | null = null;
  for (const n of state.nodes) {
    if (!n.selected) continue;
    if (found !== null) return null;
    // Inside an opened sub-society, the run knows the node by its laid-out id.
    found = runNodeId(state.path, n.id);
  }
  return found;
}

let following = false;

/**
 * Makes the context viewer follow the canvas: selecting a node shows what that node's latest
 * instance was sent (an instance picked by hand of another node is let go), until the run is
 * held somewhere new. Called once when the editor starts.
 */
export function followCanvasSelection(): void {
  if (following) return;
  following = true;
  useEditor.subscribe((state, previous) => {
    if (state.nodes !== previous.nodes) {
      const node = selectedNodeOf(state);
      if (node !== null && node !== selectedNodeOf(previous)) {
        const { contextInstance } = useDebug.getState();
        const keep =
          contextInstance !== null && state.run.instances[contextInstance]?.node === node;
        useDebug.setState({
          selectionFirst: true,
          ...(keep ? {} : { contextInstance: null, contextCall: null }),
        });
      }
    }
    const held = (s: EditorState) => {
      const at = s.run.paused?.at;
      return at && at.kind !== 'round' ? `${s.run.runId}:${at.instance ?? at.node}` : null;
    };
    if (state.run !== previous.run && held(state) !== null && held(state) !== held(previous)) {
      useDebug.setState({ selectionFirst: false });
    }
  });
}
