import { SCORER_NAMES, type Scorer, TEXT_SCORERS, textScorer } from '../../../eval/scorers.ts';
import { clip } from '../../../providers/text.ts';
import type { MemberInfluence } from '../../../runs/credit.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { EXIT, UsageError } from '../../errors.ts';
import { runOrigins } from '../../hosts.ts';
import { parseProviders } from '../../provider-flags.ts';
import { findRun, openStore, storedOverrides } from '../../run-store.ts';
import { type CreditFlags, type CreditSession, creditRun, signed } from './credit-run.ts';

/** Credits run `id`'s members (or, with `--eval`, each item's run) as the flags say; resolves to the exit code. */
export async function creditCommand(id: string | undefined, flags: CreditFlags): Promise<number> {
  if (flags.by !== 'member' && flags.by !== 'round')
    throw new UsageError(
      `--by must be member (each member in every round) or round (each member in one round)`,
    );
  if ((id === undefined) === (flags.eval === undefined))
    throw new UsageError('say what to credit: a run id, or --eval ID (not both)');
  const by = flags.by;
  const store = openStore(flags.db);
  try {
    const session: CreditSession = {
      store,
      by,
      member: flags.member,
      simulate: flags.simulate === true,
      providerOverrides: { ...storedOverrides(store), ...parseProviders(flags.provider) },
      allowedOrigins: runOrigins(store, flags),
      checked: new Set(),
    };
    if (flags.eval !== undefined) {
      const { creditEval } = await import('./credit-eval.ts');
      return await creditEval(session, flags.eval, flags);
    }
    const scorer = scorerOf(flags);
    const credit = await creditRun(session, findRun(store, id!), {
      ...(flags.output === undefined ? {} : { output: flags.output }),
      ...(scorer ? { scorer, reference: flags.expect } : {}),
      ...(flags.score === undefined ? {} : { scoreOutput: flags.score }),
    });
    const { outputName, value, baseline, influence } = credit;
    if (flags.json) {
      const report = {
        runId: credit.runId,
        by,
        output: outputName,
        value,
        ...(scorer ? { metric: scorer.name, expect: flags.expect } : {}),
        ...(flags.score === undefined ? {} : { scoreOutput: flags.score }),
        ...(baseline === undefined ? {} : { score: baseline }),
        members: influence,
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else process.stdout.write(table(credit.runId, by, outputName, value, influence));
    return influence.some((m) => m.error) ? EXIT.runFailed : EXIT.ok;
  } finally {
    store.close();
  }
}

/** The scorer `--metric` names, checked with `--expect`; undefined without `--metric`. */
function scorerOf(flags: CreditFlags): Scorer | undefined {
  if (flags.metric !== undefined && flags.score !== undefined)
    throw new UsageError(
      "score with --metric SCORER or with the run's own --score OUTPUT, not both",
    );
  if (flags.metric === undefined) {
    if (flags.expect !== undefined) throw new UsageError('--expect needs --metric SCORER');
    return undefined;
  }
  if (!(TEXT_SCORERS as readonly string[]).includes(flags.metric))
    throw new UsageError(
      SCORER_NAMES.includes(flags.metric)
        ? `--metric ${flags.metric} asks a model; credit scores with a scorer that needs none (${TEXT_SCORERS.join(', ')})`
        : `--metric must be one of ${TEXT_SCORERS.join(', ')}`,
    );
  if (flags.expect === undefined)
    throw new UsageError(`--metric ${flags.metric} needs --expect VALUE: the right answer`);
  return textScorer(flags.metric);
}

/** The per-member table: member, calls re-sent, output changed, score Δ, decisive message. */
function table(
  runId: string,
  by: 'member' | 'round',
  output: string,
  value: unknown,
  members: readonly MemberInfluence[],
): string {
  const shown = (v: unknown) =>
    terminalText(clip(typeof v === 'string' ? v : JSON.stringify(v), 40));
  const rows = members.map((m) => [
    m.member,
    String(m.leftOut),
    String(m.resent),
    String(m.fromRecord),
    m.error ? 'failed' : m.outputChanged ? `yes: ${shown(m.output)}` : 'no',
    m.scoreDelta === undefined ? '—' : signed(m.scoreDelta),
    m.decisive?.instance ?? '—',
    m.runId,
  ]);
  const head = [
    'member',
    'left out',
    're-sent',
    'from record',
    'output changed',
    'score Δ',
    'decisive',
    'fork',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    `Credit for run ${runId}: each member left out${by === 'round' ? ' of one round' : ''} in turn; ${output} was ${shown(value)}`,
    '',
    line(head),
    ...rows.map(line),
    '',
  ].join('\n');
}
