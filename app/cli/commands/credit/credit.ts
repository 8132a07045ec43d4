/**
 * `society credit RUN`: each member's influence on a run. For every member of its society the
 * run is forked without that member (app/runs/credit.ts); the fork asks again only the calls
 * whose request changed, and the table says, per member, how many calls were re-sent, whether
 * the compared output changed, by how much the score moved, and the first call the member's
 * absence changed (its decisive message). Each fork is stored, one `society show` away.
 */
import { compileGraph } from '../../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../../costs/prices.ts';
import {
  firstNumber,
  SCORER_NAMES,
  type Scorer,
  TEXT_SCORERS,
  textScorer,
} from '../../../eval/scorers.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import type { ProfileOverride } from '../../../providers/profiles.ts';
import { clip } from '../../../providers/text.ts';
import {
  type CreditUnit,
  creditMembers,
  type MemberInfluence,
  memberInfluence,
  planLeaveOut,
} from '../../../runs/credit.ts';
import { newRunId, type RunRecord, type RunStore } from '../../../store/index.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { problemsExit } from '../../document-file.ts';
import { EXIT, UsageError } from '../../errors.ts';
import { executeRun } from '../../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../../hosts.ts';
import { refuseMissingKeys } from '../../preflight.ts';
import { parseProviders } from '../../provider-flags.ts';
import { findRun, openStore, storedOverrides } from '../../run-store.ts';

export interface CreditFlags extends AllowHostFlags {
  by: string;
  /** `--member NAME`: only these members (default: every one). */
  member: string[];
  output?: string;
  metric?: string;
  expect?: string;
  simulate?: boolean;
  provider: string[];
  json?: boolean;
  db?: string;
  /** `--score OUTPUT`: the run's own score, a number in this output (a metric node's). */
  score?: string;
  /** `--eval ID`: credit each scored item's run of the eval, averaged per member. */
  eval?: string;
  /** `--variant NAME`: which variant's runs (default: the eval's first). */
  variant?: string;
}

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

/** What every credited run of one command shares. */
export interface CreditSession {
  store: RunStore;
  by: CreditUnit;
  /** `--member`: only these (empty: every member). */
  member: string[];
  simulate: boolean;
  providerOverrides: Record<string, ProfileOverride>;
  allowedOrigins: string[];
  /** Documents whose keys and hosts were checked already (by graph hash). */
  checked: Set<string>;
}

/** One run credited: the compared output, its score, and each member's influence. */
export interface RunCredit {
  runId: string;
  outputName: string;
  value: unknown;
  baseline?: number;
  influence: MemberInfluence[];
}

/**
 * Forks `parent` once per member without it and measures each fork against it: the output
 * `output` (default the run's first) compared, and scored by `scorer` against `reference`, or
 * by the run's own score (`scoreOutput`: the output a metric node fills).
 */
export async function creditRun(
  session: CreditSession,
  parent: RunRecord,
  options: { output?: string; scorer?: Scorer; reference?: unknown; scoreOutput?: string },
): Promise<RunCredit> {
  const { store } = session;
  if (parent.status !== 'succeeded')
    throw new UsageError(
      `run ${parent.id} ${parent.status === 'running' ? 'is still running' : `ended ${parent.status}`}; credit reads a run that succeeded`,
    );
  const compiled = await compileGraph(parent.documentText, await loadNodeRegistry());
  if (!compiled.ok) throw problemsExit(`run ${parent.id}`, compiled.problems);
  const outputs = parent.outputs ?? {};
  const outputName = options.output ?? Object.keys(outputs)[0];
  if (outputName === undefined || !(outputName in outputs))
    throw new UsageError(
      `${options.output === undefined ? 'the run has no output' : `run ${parent.id} has no output "${options.output}"`} to compare (its outputs: ${Object.keys(outputs).join(', ') || 'none'})`,
    );
  const all = creditMembers(compiled, store.events(parent.id), session.by);
  if (all.length === 0)
    throw new UsageError(
      `run ${parent.id} has no members to leave out: no container declares members and no node is replicated`,
    );
  const unknown = session.member.filter((name) => !all.some((m) => m.name === name));
  if (unknown.length > 0)
    throw new UsageError(
      `run ${parent.id} has no member ${unknown.join(', ')} (its members: ${all.map((m) => m.name).join(', ')})`,
    );
  const members =
    session.member.length === 0 ? all : all.filter((m) => session.member.includes(m.name));
  const { scorer, reference, scoreOutput } = options;
  if (scoreOutput !== undefined && firstNumber(outputs[scoreOutput]) === undefined)
    throw new UsageError(
      `run ${parent.id} has no number in an output "${scoreOutput}" to read as its score (its outputs: ${Object.keys(outputs).join(', ')})`,
    );
  const score = async (values: Record<string, unknown>) =>
    scorer
      ? await scorer.score(values[outputName], reference, { row: parent.inputs, outputs: values })
      : scoreOutput !== undefined
        ? firstNumber(values[scoreOutput])
        : undefined;
  const baseline = await score(outputs);

  const influence: MemberInfluence[] = [];
  for (const member of members) {
    const plan = planLeaveOut(store, parent, compiled, member, session.simulate);
    if (!session.checked.has(parent.graphHash)) {
      refuseMissingKeys(compiled.plan, {
        providerOverrides: session.providerOverrides,
        simulate: plan.simulated,
        cassetteMode: 'replay-then-live',
      });
      refuseUnallowedHosts(compiled.plan, session.allowedOrigins);
      session.checked.add(parent.graphHash);
    }
    const runId = newRunId();
    store.createRun({ id: runId, ...plan.record });
    const { result } = await executeRun(
      compiled,
      store,
      { quiet: true },
      {
        runId,
        ...plan.options,
        prices: { ...DEFAULT_PRICES, ...store.priceTable() },
        simulate: plan.simulated,
        providerOverrides: session.providerOverrides,
        allowedOrigins: session.allowedOrigins,
      },
      plan.kept,
    );
    const after = result.status === 'succeeded' ? await score(result.outputs) : undefined;
    influence.push(
      memberInfluence({
        member,
        runId,
        events: store.events(runId),
        kept: plan.kept.length,
        result,
        output: outputName,
        parentValue: outputs[outputName],
        score: after,
        baseline,
      }),
    );
  }
  return {
    runId: parent.id,
    outputName,
    value: outputs[outputName],
    ...(baseline !== undefined ? { baseline } : {}),
    influence,
  };
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

/** A number with its sign, for differences. */
export function signed(n: number): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(3);
  return n > 0 ? `+${text}` : text;
}
