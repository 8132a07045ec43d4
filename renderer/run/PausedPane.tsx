/**
 * Where a paused run is held, the debugger's controls and the held message's editor: a pane
 * beside the run panel's tabs, so the transcript and the context stay readable while paused.
 */
import { useEditor } from '../store.ts';
import { control } from './controller.ts';
import { HeldEditor } from './HeldEditor.tsx';
import { HeldToolCall } from './HeldToolCall.tsx';
import { HeldToolResult } from './HeldToolResult.tsx';

export function PausedPane() {
  const status = useEditor((s) => s.run.status);
  const paused = useEditor((s) => s.run.paused);
  if (status !== 'paused') return null;
  const at = paused?.at;
  const where = at
    ? at.kind === 'round'
      ? `before round ${at.round ?? '?'} of ${at.loop ?? '?'}`
      : at.kind === 'tool'
        ? `before ${at.instance} calls ${at.tool}`
        : at.kind === 'tool-result'
          ? `after ${at.instance}'s call to ${at.tool} returned`
          : at.kind === 'message'
            ? `before ${at.instance ?? at.node} sends a message${at.text ? `: “${at.text.slice(0, 80)}”` : ''}`
            : `before ${at.instance ?? at.node} starts`
    : '';
  return (
    <aside className="paused-pane" aria-label="Paused run">
      <div className="paused-banner" data-testid="paused-banner" role="status">
        <p className="paused-where">
          <strong>Paused</strong> {paused?.reason === 'breakpoint' ? 'at a breakpoint ' : ''}
          {paused?.reason === 'ask' ? 'for your approval ' : ''}
          {where}
        </p>
        <div className="paused-controls">
          {(['message', 'node', 'round', 'tool'] as const).map((kind) => (
            <button
              key={kind}
              type="button"
              onClick={() => control('step', kind)}
              data-testid={`paused-step-${kind}`}
            >
              Step {kind}
            </button>
          ))}
          <button
            type="button"
            className="primary"
            onClick={() => control('resume')}
            data-testid="paused-continue"
          >
            Continue
          </button>
          <button type="button" onClick={() => control('cancel')} data-testid="paused-stop">
            Stop
          </button>
        </div>
        <HeldEditor />
        <HeldToolCall />
        <HeldToolResult />
      </div>
    </aside>
  );
}
