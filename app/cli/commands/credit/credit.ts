/**
 * `society credit RUN`: each member's influence on a run. For every member of its society the
 * run is forked without that member (app/runs/credit.ts); the fork asks again only the calls
 * whose request changed, and the table says, per member, how many calls were re-sent, whether
 * the compared output changed, by how much the score moved, and the first call the member's
 * absence changed (its decisive message). Each fork is stored, one `society show` away.
 */
import { compileGraph } from '../../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../../costs/prices.ts';
import { SCORER_NAMES, type Scorer, TEXT_SCORERS, textScorer } from '../../../eval/scorers.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { clip } from '../../../providers/text.ts';
import {
  creditMembers,
  forkCalls,
  type MemberInfluence,
  planLeaveOut,
  sameValue,
} from '../../../runs/credit.ts';
import { newRunId } from '../../../store/index.ts';
import { problemsExit } from '../../document-file.ts';
import { EXIT, UsageError } from '../../errors.ts';
import { executeRun } from '../../execute.ts';
import { type AllowHostFlags, refuseUnallowedHosts, runOrigins } from '../../hosts.ts';
import { refuseMissingKeys } from '../../preflight.ts';
import { parseProviders } from '../../provider-flags.ts';
import { findRun, openStore, storedOverrides } from '../../run-store.ts';
import { terminalText } from '../../terminal-text.ts';

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
}

/** Credits run `id`'s members as the flags say; resolves to the exit code. */
export async function creditCommand(id: string, flags: CreditFlags): Promise<number> {
  if (flags.by !== 'member' && flags.by !== 'round')
    throw new UsageError(
      `--by must be member (each member in every round) or round (each member in one round)`,
    );
  const by = flags.by;
  const scorer = scorerOf(flags);
  const store = openStore(flags.db);
  try {
    const parent = findRun(store, id);
    if (parent.status !== 'succeeded')
      throw new UsageError(
        `run ${parent.id} ${parent.status === 'running' ? 'is still running' : `ended ${parent.status}`}; credit reads a run that succeeded`,
      );
    const compiled = await compileGraph(parent.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${parent.id}`, compiled.problems);
    const outputs = parent.outputs ?? {};
    const outputName = flags.output ?? Object.keys(outputs)[0];
    if (outputName === undefined || !(outputName in outputs))
      throw new UsageError(
        `${flags.output === undefined ? 'the run has no output' : `run ${parent.id} has no output "${flags.output}"`} to compare (its outputs: ${Object.keys(outputs).join(', ') || 'none'})`,
      );
    const all = creditMembers(compiled, store.events(parent.id), by);
    if (all.length === 0)
      throw new UsageError(
        `run ${parent.id} has no members to leave out: no container declares members and no node is replicated`,
      );
    const unknown = flags.member.filter((name) => !all.some((m) => m.name === name));
    if (unknown.length > 0)
      throw new UsageError(
        `run ${parent.id} has no member ${unknown.join(', ')} (its members: ${all.map((m) => m.name).join(', ')})`,
      );
    const members =
      flags.member.length === 0 ? all : all.filter((m) => flags.member.includes(m.name));
    const score = async (value: unknown) =>
      scorer ? await scorer.score(value, flags.expect, { row: parent.inputs }) : undefined;
    const baseline = await score(outputs[outputName]);

    const providerOverrides = { ...storedOverrides(store), ...parseProviders(flags.provider) };
    const allowedOrigins = runOrigins(store, flags);
    const influence: MemberInfluence[] = [];
    for (const member of members) {
      const plan = planLeaveOut(store, parent, compiled, member, flags.simulate === true);
      if (influence.length === 0) {
        refuseMissingKeys(compiled.plan, {
          providerOverrides,
          simulate: plan.simulated,
          cassetteMode: 'replay-then-live',
        });
        refuseUnallowedHosts(compiled.plan, allowedOrigins);
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
          providerOverrides,
          allowedOrigins,
        },
        plan.kept,
      );
      const output = result.outputs[outputName];
      const after = result.status === 'succeeded' ? await score(output) : undefined;
      influence.push({
        member: member.name,
        runId,
        leftOut: member.instances.length,
        ...forkCalls(store.events(runId), plan.kept.length),
        outputChanged: result.status === 'succeeded' && !sameValue(output, outputs[outputName]),
        output,
        ...(after !== undefined ? { score: after } : {}),
        ...(after !== undefined && baseline !== undefined ? { scoreDelta: after - baseline } : {}),
        ...(result.error ? { error: result.error } : {}),
      });
    }
    if (flags.json) {
      const report = {
        runId: parent.id,
        by,
        output: outputName,
        value: outputs[outputName],
        ...(scorer ? { metric: scorer.name, expect: flags.expect, score: baseline } : {}),
        members: influence,
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else process.stdout.write(table(parent.id, by, outputName, outputs[outputName], influence));
    return influence.some((m) => m.error) ? EXIT.runFailed : EXIT.ok;
  } finally {
    store.close();
  }
}

/** The scorer `--metric` names, checked with `--expect`; undefined without `--metric`. */
function scorerOf(flags: CreditFlags): Scorer | undefined {
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

function signed(n: number): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(3);
  return n > 0 ? `+${text}` : text;
}
