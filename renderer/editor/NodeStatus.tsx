import { NodeStream } from '../run/NodeStream.tsx';
import { useEditor } from '../store.ts';

/** The run state of a node while a run is shown: a coloured outline (CSS) and a short label. */
export function useRunState(id: string) {
  const run = useEditor((s) => s.run.nodes[id]);
  const breakpoint = useEditor((s) => s.breakpoints.nodes.includes(id));
  return { run, breakpoint };
}

export function StatusLabel({ id }: { id: string }) {
  const run = useEditor((s) => s.run.nodes[id]);
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
        title={run.error ?? run.skipped}
      >
        {text}
      </span>
      <NodeStream id={id} />
    </>
  );
}
