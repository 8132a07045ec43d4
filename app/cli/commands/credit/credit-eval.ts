/**
 * `society credit --eval ID`: every scored item's run of one variant of an eval credited as
 * `society credit RUN` credits one, with the eval's own scorer and each item's reference, and
 * each member's influence averaged over the items: how often leaving it out changed the output,
 * the mean score difference, and the calls re-sent.
 */
import { TEXT_SCORERS, textScorer } from '../../../eval/scorers.ts';
import { EXIT, UsageError } from '../../errors.ts';
import {
  type CreditFlags,
  type CreditSession,
  creditRun,
  type RunCredit,
  signed,
} from './credit-run.ts';

/** Per member, over the items. */
export interface MemberAverage {
  member: string;
  /** Items whose run had this member. */
  items: number;
  /** Items whose output changed without it. */
  changed: number;
  /** Mean score difference without it, over the items that were scored. */
  meanScoreDelta?: number;
  /** Calls re-sent over all items. */
  resent: number;
}

/** Credits eval `id`'s runs; resolves to the exit code. */
export async function creditEval(
  session: CreditSession,
  id: string,
  flags: CreditFlags,
): Promise<number> {
  const { store } = session;
  const record = store.getEval(id);
  if (!record)
    throw new UsageError(`no eval "${id}" in ${store.path} (see \`society eval --list\`)`);
  const variants = record.config.variants.map((v) => v.name);
  const variant = flags.variant ?? variants[0];
  if (variant === undefined || !variants.includes(variant))
    throw new UsageError(
      `eval ${record.id} has no variant "${flags.variant}" (its variants: ${variants.join(', ')})`,
    );
  const items = store
    .evalItems(record.id)
    .filter((i) => i.variant === variant && i.status === 'scored' && i.runId !== undefined);
  if (items.length === 0)
    throw new UsageError(`eval ${record.id} has no scored run of variant ${variant} to credit`);
  const name = record.config.scorer.name;
  const scorer = (TEXT_SCORERS as readonly string[]).includes(name)
    ? textScorer(name, { tolerance: record.config.scorer.tolerance ?? 0 })
    : undefined;
  const output = flags.output ?? record.config.output;
  const credits: Array<RunCredit & { item: number }> = [];
  for (const item of items) {
    const run = store.getRun(item.runId!);
    if (!run) continue;
    const credit = await creditRun(session, run, {
      ...(output === undefined ? {} : { output }),
      ...(scorer ? { scorer, reference: item.reference } : {}),
    });
    credits.push({ ...credit, item: item.item });
  }
  const averages = average(credits);
  if (flags.json) {
    const report = {
      evalId: record.id,
      variant,
      by: session.by,
      ...(scorer ? { metric: scorer.name } : {}),
      members: averages,
      items: credits,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const head = ['member', 'items', 'output changed', 'mean score Δ', 're-sent'];
    const rows = averages.map((m) => [
      m.member,
      String(m.items),
      `${m.changed} of ${m.items}`,
      m.meanScoreDelta === undefined ? '—' : signed(m.meanScoreDelta),
      String(m.resent),
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) =>
      cells
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd();
    const scored = scorer
      ? `scored with ${scorer.name}`
      : `not scored (its scorer ${name} asks a model)`;
    process.stdout.write(
      [
        `Credit over eval ${record.id}, variant ${variant}: ${credits.length} runs, ${scored}`,
        '',
        line(head),
        ...rows.map(line),
        '',
      ].join('\n'),
    );
  }
  return credits.some((c) => c.influence.some((m) => m.error)) ? EXIT.runFailed : EXIT.ok;
}

/** Each member's influence averaged over the runs that had it, in the order members first appear. */
export function average(credits: readonly RunCredit[]): MemberAverage[] {
  const by = new Map<string, MemberAverage & { deltas: number[] }>();
  for (const credit of credits) {
    for (const m of credit.influence) {
      const row = by.get(m.member) ?? {
        member: m.member,
        items: 0,
        changed: 0,
        resent: 0,
        deltas: [],
      };
      row.items++;
      if (m.outputChanged) row.changed++;
      row.resent += m.resent;
      if (m.scoreDelta !== undefined) row.deltas.push(m.scoreDelta);
      by.set(m.member, row);
    }
  }
  return [...by.values()].map(({ deltas, ...row }) => ({
    ...row,
    ...(deltas.length > 0
      ? { meanScoreDelta: deltas.reduce((a, b) => a + b, 0) / deltas.length }
      : {}),
  }));
}
