/**
 * The text a node's model call is streaming right now, for its card on the canvas: the tail of
 * the latest call of any of its instances, labelled when the answers are simulated.
 */
import { memo } from 'react';
import { useEditor } from '../store.ts';
import './run.css';

const TAIL = 140;

function NodeStreamView({ id }: { id: string }) {
  const text = useEditor((s) => {
    let latest = '';
    for (const call of Object.values(s.run.live))
      if (call.node === id && call.text) latest = call.text;
    return latest.length > TAIL ? `…${latest.slice(-TAIL)}` : latest;
  });
  const simulated = useEditor((s) => s.run.simulated || s.run.mode === 'simulated');
  if (!text) return null;
  return (
    <div className="node-stream" data-testid={`stream-${id}`} aria-live="off">
      {simulated ? <span className="simulated-label">simulated</span> : null} {text}
    </div>
  );
}

export const NodeStream = memo(NodeStreamView);
