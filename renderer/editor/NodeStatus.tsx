import { rolledUpRun, runNodeId, runPrefix } from '../model/library.ts';
import type { NodeRun } from '../model/run.ts';
import { NodeStream } from '../run/NodeStream.tsx';
import { type EditorState, useEditor } from '../store.ts';

/**
 * A canvas node's state in the run: its own, found by its id in the run (inside an opened
 * sub-society, with the `<society>/` prefix the run gives its members), and for a sub-society
 * node the roll-up of its members'. Cached per run view so selectors return stable objects.
 */
const rolled = new WeakMap<object, Map<string, NodeRun | undefined>>();
function nodeRun(s: EditorState, id: string): NodeRun | undefined {
  const prefix = runPrefix(s.path);
  if (prefix === null) return undefined;
  const full = `${prefix}${id}`;
  let byId = rolled.get(s.run.nodes);
  if (!byId) {
    // The nodes whose members ran (`artists` for `artists/questioner`): their state rolls up.
    byId = new Map();
    for (const key of Object.keys(s.run.nodes)) {
      const parts = key.split('/');
      for (let i = 1; i < parts.length; i++) {
        const owner = parts.slice(0, i).join('/');
        if (!byId.has(owner)) byId.set(owner, rolledUpRun(s.run.nodes, owner, true));
      }
    }
    rolled.set(s.run.nodes, byId);
  }
  return byId.has(full) ? byId.get(full) : s.run.nodes[full];
}

/** The run state of a node while a run is shown: a coloured outline (CSS) and a short label. */
export function useRunState(id: string) {
  const run = useEditor((s) => nodeRun(s, id));
  const breakpoint = useEditor((s) => s.breakpoints.nodes.includes(runNodeId(s.path, id)));
  return { run, breakpoint };
}

/**
 * A mark for each state, drawn before the word (card-value.css reads it from `data-icon`, so the
 * label's text stays the state's word), so a state reads without its colour; a screen reader
 * hears the node and its state from the label's `aria-label`.
 */
export const STATUS_ICON: Record<NodeRun['state'], string> = {
  waiting: '○',
  running: '●',
  done: '✓',
  failed: '✕',
  paused: '‖',
  skipped: '⤼',
};

/** The node's state as a mark and a word (`✓ done`, `⤼ skipped`), with why in its tooltip. */
export function StatusLabel({ id }: { id: string }) {
  const run = useEditor((s) => nodeRun(s, id));
  const streaming = useEditor((s) => runNodeId(s.path, id));
  if (!run) return null;
  let text: string = run.state;
  if (run.round !== undefined && run.state !== 'done') {
    text = `${run.state} · round ${run.round}${run.maxRounds ? `/${run.maxRounds}` : ''}`;
  } else if (run.active > 1) text = `${run.state} ×${run.active}`;
  return (
    <>
      <span
        className={`status status-${run.state}`}
        data-testid={`status-${id}`}
        role="img"
        data-icon={STATUS_ICON[run.state]}
        aria-label={`${id}: ${text}${run.skipped ? ` (${run.skipped})` : ''}`}
        title={run.error ?? run.skipped}
      >
        {text}
      </span>
      <NodeStream id={streaming} />
    </>
  );
}
