/**
 * Crediting one run: fork it once per member without that member and measure each fork against
 * it (app/runs/credit.ts plans the forks). `society credit RUN` and `society credit --eval ID`
 * both credit runs through this.
 */
import { compileGraph } from '../../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../../costs/prices.ts';
import { firstNumber, type Scorer } from '../../../eval/scorers.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import type { ProfileOverride } from '../../../providers/profiles.ts';
import {
  type CreditUnit,
  creditMembers,
  type MemberInfluence,
  memberInfluence,
  planLeaveOut,
} from '../../../runs/credit.ts';
import { newRunId, type RunRecord, type RunStore } from '../../../store/index.ts';
import { problemsExit } from '../../document-file.ts';
import { UsageError } from '../../errors.ts';
import { executeRun } from '../../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts } from '../../hosts.ts';
import { refuseMissingKeys } from '../../preflight.ts';

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

/** A number with its sign, for differences. */
export function signed(n: number): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(3);
  return n > 0 ? `+${text}` : text;
}
