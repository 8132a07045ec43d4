/**
 * The runs the store holds: listing, showing, comparing and deleting them, forking one from a
 * point of its log with edits, and continuing a failed one (`runs.*`). A fork or a continuation
 * that sends live calls checks the keys, the hosts and the spending threshold first, as Run live
 * does.
 */

import { type CompiledGraph, compileGraph } from '../../app/compiler/index.ts';
import { expertProviders } from '../../app/experts/providers.ts';
import type { NodeRegistry } from '../../app/node-sdk/registry.ts';
import { continuationRefusal, planContinuation } from '../../app/runs/continue.ts';
import { diffRuns } from '../../app/runs/diff.ts';
import { RunsError } from '../../app/runs/errors.ts';
import { planFork } from '../../app/runs/fork.ts';
import { callRecorder, expertRecorder, toolRecorder } from '../../app/runs/record.ts';
import { startRun } from '../../app/runtime/engine.ts';
import { newRunId } from '../../app/store/index.ts';
import { toBreakpoints } from './breakpoints.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';
import { refuseUnallowedHosts, studioOrigins } from './hosts.ts';
import type { LiveRuns } from './live-runs.ts';
import { refuseMissingMcp, studioToolSources } from './mcp.ts';
import { refuseMissingKeys } from './preflight.ts';
import { checkLiveSpend } from './spending.ts';
import { storedRun } from './stored-run.ts';

/** What a fork or a continuation starts from: its record, options and what it keeps. */
type RecordPlan = ReturnType<typeof planFork> | ReturnType<typeof planContinuation>;

/** The `runs.*` methods. */
export function historyMethods(
  ctx: ApiContext,
  live: LiveRuns,
): ApiMethods<
  'runs.list' | 'runs.fork' | 'runs.continue' | 'runs.diff' | 'runs.delete' | 'runs.show'
> {
  const { store, redactor } = ctx;

  /**
   * Starts a fork or a continuation of a stored run: its keys, hosts and (when it goes live) the
   * spending threshold are checked before it is recorded; then it runs with answered calls served
   * from the record. Resolves to the new run's id.
   */
  function startFromRecord(
    compiled: CompiledGraph,
    plan: RecordPlan,
    how: {
      registry: NodeRegistry;
      inputs: Record<string, unknown>;
      costConfirmed: boolean;
      what: string;
      breakpoints: Parameters<typeof toBreakpoints>[0];
    },
  ): string {
    refuseMissingKeys(ctx, compiled.plan, {
      simulate: plan.simulated,
      cassetteMode: 'replay-then-live',
    });
    refuseMissingMcp(ctx, compiled.plan, { simulate: plan.simulated });
    refuseUnallowedHosts(ctx, compiled.plan);
    if (!plan.simulated) checkLiveSpend(ctx, compiled, how.inputs, how.costConfirmed, how.what);
    ctx.secretsChanged();
    const id = newRunId();
    store.markInterrupted();
    store.createRun({ id, ...plan.record });
    const run = startRun(compiled, {
      experts: expertProviders,
      tools: studioToolSources(ctx),
      registry: how.registry,
      runId: id,
      ...plan.options,
      prices: ctx.prices(),
      simulate: plan.simulated,
      providerOverrides: ctx.storedOverrides(),
      env: ctx.runEnv(),
      allowedOrigins: studioOrigins(ctx),
      breakpoints: toBreakpoints(how.breakpoints),
      // The person at the page answers a tool that asks before it runs.
      toolApproval: { interactive: true },
      redactor,
      onModelCall: callRecorder(store, id),
      onExpertCall: expertRecorder(store, id),
      ...toolRecorder(store, id),
    });
    live.track(run, plan.kept);
    return id;
  }

  return {
    async 'runs.list'({ limit }) {
      return store.listRuns({ limit }).map((r) => ({
        id: r.id,
        graph: r.graph,
        status: r.status,
        startedAt: r.startedAt,
        calls: r.calls,
        tokens: r.tokens,
        ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
        mode: r.mode,
        ...(r.parentRunId !== undefined ? { parentRunId: r.parentRunId } : {}),
      }));
    },

    async 'runs.fork'({ runId, edits, at, simulate, costConfirmed, breakpoints }) {
      const parent = storedRun(store, runId);
      if (live.has(parent.id)) {
        throw new ApiError(`run ${parent.id} is still going: fork it once it has ended`);
      }
      const registry = await ctx.nodeRegistry();
      const compiled = await compileGraph(parent.documentText, registry);
      if (!compiled.ok) {
        throw new ApiError(`run ${parent.id} no longer compiles`, compiled.problems);
      }
      let plan: ReturnType<typeof planFork>;
      try {
        plan = planFork(store, parent, compiled, {
          edits: Object.fromEntries(edits.map((e) => [e.instance, e.text])),
          ...(at === undefined ? {} : { at }),
          simulate: simulate === true,
        });
      } catch (error) {
        if (error instanceof RunsError) throw new ApiError(error.message);
        throw error;
      }
      // What the parent's record lacks is sent live: the same checks as Run live.
      const forkId = startFromRecord(compiled, plan, {
        registry,
        inputs: parent.inputs,
        costConfirmed,
        what: 'this live fork',
        breakpoints,
      });
      return { runId: forkId, parentRunId: parent.id, forkSeq: plan.at - 1 };
    },

    async 'runs.continue'({ runId, costConfirmed, breakpoints }) {
      const ended = storedRun(store, runId);
      if (live.has(ended.id)) throw new ApiError(`run ${ended.id} is still going`);
      // An interrupted run is continued like a failed one here: the studio does not take a
      // run up again under its own id while a terminal might (`society resume` does that).
      const refusal = continuationRefusal(ended, false);
      if (refusal) throw new ApiError(refusal.message);
      const registry = await ctx.nodeRegistry();
      const compiled = await compileGraph(ended.documentText, registry);
      if (!compiled.ok) throw new ApiError(`run ${ended.id} no longer compiles`, compiled.problems);
      let plan: ReturnType<typeof planContinuation>;
      try {
        plan = planContinuation(store, ended, compiled, false);
      } catch (error) {
        if (error instanceof RunsError) throw new ApiError(error.message);
        throw error;
      }
      // What the record lacks is sent: every check runs before the continuation is recorded.
      const newId = startFromRecord(compiled, plan, {
        registry,
        inputs: ended.inputs,
        costConfirmed,
        what: 'this live retry',
        breakpoints,
      });
      return {
        runId: newId,
        parentRunId: ended.id,
        forkSeq: plan.record.forkSeq ?? 0,
        answered: plan.answered,
      };
    },

    async 'runs.diff'({ a, b }) {
      const left = storedRun(store, a);
      const right = storedRun(store, b);
      return diffRuns(left, store.events(left.id), right, store.events(right.id));
    },

    async 'runs.delete'({ runId }) {
      if (live.has(runId)) {
        throw new ApiError(`run ${runId} is still going: stop it before deleting it`);
      }
      return { deleted: store.deleteRun(runId) };
    },

    async 'runs.show'({ runId }) {
      const run = storedRun(store, runId);
      return {
        run: { ...run } as Record<string, unknown>,
        events: store.events(run.id) as unknown as Array<Record<string, unknown>>,
      };
    },
  };
}
