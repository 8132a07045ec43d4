/** `society evals` (the list) and `society eval-show ID` (one eval's table, and its items). */
import { hasNoScore } from '../../../eval/score-text.ts';
import { summarize } from '../../../eval/summary.ts';
import { presentTable } from '../../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalRecord, EvalSummary } from '../../../eval/types.ts';
import { AmbiguousEvalIdError, type RunStore } from '../../../store/index.ts';
import { columns } from '../../../terminal/columns.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { UsageError } from '../../errors.ts';
import { openStore } from '../../run-store.ts';
import { formatItems, formatSummary } from './print.ts';
import { checkReportPath, writeReport } from './report-file.ts';

/** The eval `id` (or a unique prefix), or a one-line UsageError. */
export function findEval(store: RunStore, id: string): EvalRecord {
  try {
    const record = store.getEval(id);
    if (!record) throw new UsageError(`no eval "${id}" in ${store.path} (see \`society evals\`)`);
    return record;
  } catch (error) {
    if (error instanceof AmbiguousEvalIdError) throw new UsageError(error.message);
    throw error;
  }
}

export function evalsCommand(flags: { db?: string; json?: boolean; limit?: string }): void {
  const store = openStore(flags.db);
  try {
    const limit = Number(flags.limit ?? 20);
    if (!Number.isInteger(limit) || limit < 1)
      throw new UsageError('--limit must be a whole number ≥ 1');
    const summaries = store
      .listEvals(limit)
      .map((r) => summarize(r, store.evalItems(r.id), store.evalRatings(r.id)));
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(summaries)}\n`);
      return;
    }
    if (summaries.length === 0) {
      process.stdout.write(
        `no evals in ${store.path} (run one with \`society eval FILE --data DATA\`)\n`,
      );
      return;
    }
    const rows = [['id', 'name', 'status', 'items', 'variants', 'best', 'created']];
    for (const s of summaries) {
      // A variant whose every run failed has no score to be best with.
      const best = s.variants
        .filter((v) => !hasNoScore(v))
        .sort((a, b) => b.score.mean - a.score.mean)[0];
      rows.push([
        s.evalId,
        s.name + (s.simulated ? ' [simulated]' : ''),
        s.status,
        String(s.items),
        String(s.variants.length),
        best
          ? `${best.name} ${best.score.mean.toFixed(3)}`
          : s.variants.some((v) => v.n > 0)
            ? 'failed'
            : '–',
        new Date(s.createdAt).toISOString().slice(0, 16).replace('T', ' '),
      ]);
    }
    process.stdout.write(`${columns(rows).join('\n')}\n`);
  } finally {
    store.close();
  }
}

/**
 * An eval's table as `eval-show` prints it: the layout its record names (a paper's, see
 * table-presenters.ts) first, then the usual table.
 */
export async function evalTable(
  store: RunStore,
  record: EvalRecord,
): Promise<{ summary: EvalSummary; items: EvalItemRecord[]; text: string; paper?: string }> {
  const items = store.evalItems(record.id);
  const summary = summarize(record, items, store.evalRatings(record.id));
  const paper = await presentTable(
    record.config.table,
    summary,
    items,
    (runId) => store.getRun(runId)?.outputs,
  );
  const text = `${paper !== undefined ? `${paper}\n\n` : ''}${formatSummary(summary)}`;
  return { summary, items, text, ...(paper !== undefined ? { paper } : {}) };
}

export async function evalShowCommand(
  id: string,
  flags: { db?: string; json?: boolean; items?: boolean; report?: string },
): Promise<void> {
  if (flags.report !== undefined) checkReportPath(flags.report);
  const store = openStore(flags.db);
  try {
    const record = findEval(store, id);
    const ratings = store.evalRatings(record.id);
    const { summary, items, text } = await evalTable(store, record);
    if (flags.report !== undefined) {
      writeReport(flags.report, summary, items);
      process.stderr.write(`society: report written to ${flags.report}\n`);
    }
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify(flags.items ? { ...summary, itemRecords: items, ratings } : summary)}\n`,
      );
      return;
    }
    process.stdout.write(terminalText(`${text}\n`));
    if (flags.items) process.stdout.write(terminalText(`\n${formatItems(items)}\n`));
  } finally {
    store.close();
  }
}
