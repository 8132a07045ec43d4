/**
 * `runs.credit`: each member's influence on a stored run, as `society credit RUN` measures it
 * (app/runs/credit.ts): the run forked once per member with that member left out, every call
 * whose request did not change answered from the run's record. The forks run through the
 * backend's providers with the vault's keys, which the page never sees, and are recorded and
 * tracked like any fork the studio starts, so each is one click from the Credit tab.
 */
import type { ApiResult } from '../../app/api/contract.ts';
import { compileGraph } from '../../app/compiler/index.ts';
import { firstNumber, type Scorer, TEXT_SCORERS, textScorer } from '../../app/eval/scorers.ts';
import { expertProviders } from '../../app/experts/providers.ts';
import {
  creditMembers,
  type MemberInfluence,
  memberInfluence,
  planLeaveOut,
} from '../../app/runs/credit.ts';
import { RunsError } from '../../app/runs/errors.ts';
import { callRecorder, expertRecorder, toolRecorder } from '../../app/runs/record.ts';
import { startRun } from '../../app/runtime/engine.ts';
import { newRunId } from '../../app/store/index.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';
import { refuseUnallowedHosts, studioOrigins } from './hosts.ts';
import type { LiveRuns } from './live-runs.ts';
import { refuseMissingMcp, studioToolSources } from './mcp.ts';
import { refuseMissingKeys } from './preflight.ts';
import { checkLiveSpend } from './spending.ts';
import { storedRun } from './stored-run.ts';

type Credit = ApiResult<'runs.credit'>;

/** The `runs.credit` method. */
export function creditMethods(ctx: ApiContext, live: LiveRuns): ApiMethods<'runs.credit'> {
  const { store, redactor } = ctx;
  return {
    async 'runs.credit'(params): Promise<Credit> {
      const parent = storedRun(store, params.runId);
      if (parent.status !== 'succeeded')
        throw new ApiError(
          `run ${parent.id} ${live.has(parent.id) ? 'is still going' : `ended ${parent.status}`}: credit reads a run that succeeded`,
        );
      const registry = await ctx.nodeRegistry();
      const compiled = await compileGraph(parent.documentText, registry);
      if (!compiled.ok)
        throw new ApiError(`run ${parent.id} no longer compiles`, compiled.problems);
      const outputs = parent.outputs ?? {};
      const output = params.output ?? Object.keys(outputs)[0];
      if (output === undefined || !(output in outputs))
        throw new ApiError(
          `run ${parent.id} has no output ${params.output === undefined ? '' : `"${params.output}" `}to compare (its outputs: ${Object.keys(outputs).join(', ') || 'none'})`,
        );
      const members = creditMembers(compiled, store.events(parent.id));
      if (members.length === 0)
        throw new ApiError(
          `run ${parent.id} has no members to leave out: no container declares members and no node is replicated`,
        );
      const score = scoring(params, output, outputs, parent.inputs);
      const baseline = await score.of(outputs);

      const plans = members.map((member) => {
        try {
          return planLeaveOut(store, parent, compiled, member, params.simulate);
        } catch (error) {
          if (error instanceof RunsError) throw new ApiError(error.message);
          throw error;
        }
      });
      // Every fork sends what the record lacks: checked once, before the first is recorded.
      const simulated = plans.every((p) => p.simulated);
      refuseMissingKeys(ctx, compiled.plan, {
        simulate: simulated,
        cassetteMode: 'replay-then-live',
      });
      refuseMissingMcp(ctx, compiled.plan, { simulate: simulated });
      refuseUnallowedHosts(ctx, compiled.plan);
      if (!simulated)
        checkLiveSpend(
          ctx,
          compiled,
          parent.inputs,
          params.costConfirmed,
          `each of this credit's ${plans.length} live forks`,
        );
      ctx.secretsChanged();

      const rows: MemberInfluence[] = [];
      for (const [i, member] of members.entries()) {
        const plan = plans[i]!;
        const id = newRunId();
        store.createRun({ id, ...plan.record });
        const run = startRun(compiled, {
          experts: expertProviders,
          tools: studioToolSources(ctx),
          registry,
          runId: id,
          ...plan.options,
          prices: ctx.prices(),
          simulate: plan.simulated,
          providerOverrides: ctx.storedOverrides(),
          env: ctx.runEnv(),
          allowedOrigins: studioOrigins(ctx),
          // Nobody answers a tool that asks first while credit runs: it is refused.
          toolApproval: { interactive: false },
          redactor,
          onModelCall: callRecorder(store, id),
          onExpertCall: expertRecorder(store, id),
          ...toolRecorder(store, id),
        });
        live.track(run, plan.kept);
        const result = await run.result;
        await live.get(id)?.done;
        const after = result.status === 'succeeded' ? await score.of(result.outputs) : undefined;
        rows.push(
          memberInfluence({
            member,
            runId: id,
            events: store.events(id),
            kept: plan.kept.length,
            result,
            output,
            parentValue: outputs[output],
            score: after,
            baseline,
          }),
        );
      }
      return {
        runId: parent.id,
        output,
        value: outputs[output],
        ...(baseline !== undefined ? { score: baseline } : {}),
        simulated,
        members: rows,
      };
    },
  };
}

/** How a run and its forks are scored (the compared `output`): a scorer that needs no model, or the run's own score. */
function scoring(
  params: { metric?: string | undefined; expect?: string | undefined; scoreOutput?: string },
  output: string,
  outputs: Record<string, unknown>,
  inputs: Record<string, unknown>,
): { of: (values: Record<string, unknown>) => Promise<number | undefined> } {
  const { metric, expect, scoreOutput } = params;
  if (metric !== undefined && scoreOutput !== undefined)
    throw new ApiError("score with a scorer or with the run's own score, not both");
  if (scoreOutput !== undefined) {
    if (firstNumber(outputs[scoreOutput]) === undefined)
      throw new ApiError(
        `the run has no number in an output "${scoreOutput}" to read as its score`,
      );
    return { of: async (values) => firstNumber(values[scoreOutput]) };
  }
  if (metric === undefined) return { of: async () => undefined };
  if (!(TEXT_SCORERS as readonly string[]).includes(metric))
    throw new ApiError(`the scorer must be one of ${TEXT_SCORERS.join(', ')}`);
  if (expect === undefined) throw new ApiError(`scoring with ${metric} needs the right answer`);
  const scorer: Scorer = textScorer(metric);
  return {
    of: async (values) => scorer.score(values[output], expect, { row: inputs, outputs: values }),
  };
}
