/**
 * The edits a run's log records: node instances whose outputs were given instead of produced (a
 * fork's `--edit`, the debugger's `o`) and messages a person rewrote (the debugger's `e`). A run
 * that runs the same graph again (a replay of an export, a fork of a fork) passes them back as
 * `overrides` and `messageEdits`, so the edited instances do not ask a model the record never
 * answered, and what follows reads the same texts.
 */
import type { NodeOutputs } from '../node-sdk/define.ts';
import type { RunEvent } from './events.ts';
import type { RunOptions } from './run-options.ts';

/** The edits in `events`, as run options (empty objects when there are none). */
export function editsInLog(
  events: readonly RunEvent[],
): Required<Pick<RunOptions, 'overrides' | 'messageEdits'>> {
  const overrides: Record<string, NodeOutputs> = {};
  const messageEdits: Record<string, string> = {};
  for (const event of events) {
    if (event.type === 'node.finished' && event.given) overrides[event.instance] = event.outputs;
    if (event.type === 'message' && event.edited) messageEdits[event.from] = event.text;
  }
  return { overrides, messageEdits };
}
