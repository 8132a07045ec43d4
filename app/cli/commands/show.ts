/**
 * `society show RUN`: a run's transcript by round, votes, usage and outputs (or JSON); with
 * `--heatmap`, `--series` or an export, its analytics instead (see ../show-analytics.ts).
 */

import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import { terminalText } from '../../terminal/terminal-text.ts';
import { reportLines } from '../report-lines.ts';
import { findRun, openStore } from '../run-store.ts';
import { formatRun } from '../runs.ts';
import {
  type AnalyticsFlags,
  analyticsHint,
  checkExportFlags,
  showAnalytics,
  wantsAnalytics,
} from '../show-analytics.ts';

export type ShowFlags = AnalyticsFlags & { json?: boolean; db?: string };

export async function showCommand(id: string, flags: ShowFlags): Promise<void> {
  checkExportFlags(flags);
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const run = findRun(store, id);
    const events = store.events(run.id);
    if (wantsAnalytics(flags)) {
      await showAnalytics(run.id, events, flags);
      return;
    }
    // A run that answered an eval's item says which, and how it scored.
    const item = store.evalItemOfRun(run.id);
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ run, events, ...(item ? { evalItem: item } : {}) })}\n`,
      );
      return;
    }
    if (item)
      process.stdout.write(
        terminalText(
          `eval ${item.evalId}: item ${item.item + 1}, variant ${item.variant}, ${item.status}${item.status === 'failed' || item.score === undefined ? '' : `, score ${item.score.toFixed(3)}`}${item.reference === undefined ? '' : ` (expected ${JSON.stringify(item.reference)})`}\n`,
        ),
      );
    process.stdout.write(formatRun(run, events, reportLines(await loadNodeRegistry())));
    process.stdout.write(analyticsHint(run.id, events));
    // Questions put to its members afterwards are not part of the run: named, not shown in it.
    const asked = store.interviews.ofRun(run.id).length;
    if (asked)
      process.stdout.write(
        `${asked} side call${asked === 1 ? '' : 's'} (interview${asked === 1 ? '' : 's'}): society interview ${run.id} --list\n`,
      );
  } finally {
    store.close();
  }
}
