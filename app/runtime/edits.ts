/**
 * The edits a run's log records: node instances whose outputs were given instead of produced (a
 * fork's `--edit`, the debugger's `o`), messages a person rewrote (the debugger's `e`) and tool
 * calls a person changed or denied before they ran, or whose result they replaced. A run that runs the same graph again (a
 * replay of an export, a fork of a fork) passes them back as `overrides`, `messageEdits` and
 * `toolEdits`, so the edited instances do not ask a model the record never answered, and what
 * follows reads the same texts and calls its tools with the same arguments.
 */
import type { NodeOutputs } from '../node-sdk/define.ts';
import type { RunEvent } from './events.ts';
import type { RunOptions, ToolEdit } from './run-options.ts';

/** The edits in `events`, as run options (empty objects when there are none). */
export function editsInLog(
  events: readonly RunEvent[],
): Required<Pick<RunOptions, 'overrides' | 'messageEdits' | 'toolEdits'>> {
  const overrides: Record<string, NodeOutputs> = {};
  const messageEdits: Record<string, string> = {};
  const toolEdits: Record<string, ToolEdit> = {};
  for (const event of events) {
    if (event.type === 'node.finished' && event.given) overrides[event.instance] = event.outputs;
    if (event.type === 'message' && event.edited) messageEdits[event.from] = event.text;
    if (event.type === 'tool.call' && event.edited)
      toolEdits[event.callId] = { arguments: event.arguments };
    if (event.type === 'tool.result' && event.denied) toolEdits[event.callId] = { denied: true };
    if (event.type === 'tool.result' && event.edited && event.editedBy) {
      const before = toolEdits[event.callId];
      toolEdits[event.callId] = {
        ...(before && 'arguments' in before ? { arguments: before.arguments } : {}),
        result: { text: event.result, by: event.editedBy },
      };
    }
  }
  return { overrides, messageEdits, toolEdits };
}
