/**
 * Starting and steering a run from the page: `run.start` (live, simulated, or a template's
 * replay, as the page says; a replay the cassette cannot answer, a key a live call needs and is
 * not set, a budget the run cannot meet and a live run above the spending threshold are refused
 * before anything is recorded or called), `run.control`, `run.breakpoints`, `run.editHeld`, `run.editHeldTool`, `run.editHeldToolResult`, `run.context` and `run.blob`. Runs are
 * recorded in the store exactly as `society run` records them (app/cli/commands/run.ts and app/cli/execute.ts): the document,
 * inputs and images, every event, the run's own record of calls, and how it ended.
 */

import { compileGraph } from '../../app/compiler/index.ts';
import { expertProviders } from '../../app/experts/providers.ts';
import {
  callRecorder,
  documentTextOf,
  expertRecorder,
  sourceTextOf,
  storeImages,
  toolRecorder,
} from '../../app/runs/record.ts';
import { agentContext } from '../../app/runtime/agent-context.ts';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { startRun } from '../../app/runtime/engine.ts';
import { missingRunInputs } from '../../app/runtime/inputs.ts';
import { resultEditor } from '../../app/runtime/tool-holds.ts';
import { newRunId } from '../../app/store/index.ts';
import { toBreakpoints } from './breakpoints.ts';
import { checkStudioBudget } from './budget.ts';
import { type ApiContext, type ApiMethods, messageOf } from './context.ts';
import { ApiError } from './errors.ts';
import { refuseUnallowedHosts, studioOrigins } from './hosts.ts';
import type { LiveRuns } from './live-runs.ts';
import { refuseMissingMcp, studioToolSources } from './mcp.ts';
import { refuseMissingKeys } from './preflight.ts';
import { replayCassette } from './replay-check.ts';
import { readPageInputs } from './run-inputs.ts';
import { checkLiveSpend } from './spending.ts';
import { storedRun } from './stored-run.ts';
import type { TemplateShelf } from './templates.ts';

/** The `run.*` methods. */
export function runMethods(
  ctx: ApiContext,
  live: LiveRuns,
  templates: TemplateShelf,
): ApiMethods<
  | 'run.start'
  | 'run.control'
  | 'run.breakpoints'
  | 'run.editHeld'
  | 'run.editHeldTool'
  | 'run.editHeldToolResult'
  | 'run.context'
  | 'run.blob'
> {
  const { store, redactor } = ctx;
  return {
    async 'run.start'(params) {
      const { mode } = params;
      if ((mode === 'replay') !== (params.replayTemplate !== undefined)) {
        throw new ApiError(
          mode === 'replay'
            ? 'a replay names the template whose cassette answers it (replayTemplate)'
            : `a ${mode} run replays no cassette: replayTemplate goes with mode "replay"`,
        );
      }
      const registry = await ctx.nodeRegistry();
      const compiled = await compileGraph(params.document, registry, { params: params.params });
      if (!compiled.ok) throw new ApiError('the document has problems', compiled.problems);
      const breakpoints = toBreakpoints(params.breakpoints);

      const blobs = new BlobStore();
      const { inputs, humanAnswers } = readPageInputs(params.inputs, compiled.plan, blobs);
      // An empty input is refused before anything is recorded, in the studio's words.
      const missing = missingRunInputs(compiled.plan, inputs);
      if (missing.length > 0) {
        throw new ApiError(
          `give a value for ${missing.map((m) => `"${m}"`).join(', ')} before running (the Inputs tab)`,
        );
      }
      // Nothing is recorded and nothing is called before these say yes.
      const cassette =
        params.replayTemplate !== undefined
          ? await replayCassette(ctx, templates, params.replayTemplate, compiled, {
              inputs,
              humanAnswers,
            })
          : undefined;
      // Every key a live call can need, before the estimate is weighed and before anything is recorded.
      refuseMissingKeys(ctx, compiled.plan, {
        simulate: mode === 'simulated',
        ...(mode === 'replay' ? { cassetteMode: 'replay' as const } : {}),
      });
      refuseMissingMcp(ctx, compiled.plan, {
        simulate: mode === 'simulated',
        replay: mode === 'replay',
      });
      // Outside hosts the document contacts, in every mode (a replay plays its simulator again).
      refuseUnallowedHosts(ctx, compiled.plan);
      // A budget the run cannot meet, in every mode: it would only end "budget exceeded".
      const warnings = checkStudioBudget(ctx, compiled.plan, inputs, params.allowBudgetStop);
      if (mode === 'live') checkLiveSpend(ctx, compiled, inputs, params.costConfirmed);
      const env = ctx.runEnv();
      ctx.secretsChanged();
      const runId = newRunId();
      const overrides = ctx.storedOverrides();
      store.markInterrupted();
      store.createRun({
        id: runId,
        document: compiled.doc,
        documentText: documentTextOf(compiled),
        compilerVersion: compiled.machines.compilerVersion,
        mode,
        inputs,
      });
      storeImages(store, blobs, inputs);
      store.saveGraph(compiled.source, sourceTextOf(compiled));

      const run = startRun(compiled, {
        experts: expertProviders,
        tools: studioToolSources(ctx),
        registry,
        runId,
        inputs,
        // A template's replay gives a person's recorded turns again too (a seat's commands).
        humanAnswers: { ...cassette?.answers(), ...humanAnswers },
        blobs,
        prices: ctx.prices(),
        simulate: mode === 'simulated',
        // Strict: a request the cassette lacks fails the run; no provider is ever made.
        ...(cassette ? { cassette: { cassette, mode: 'replay' as const } } : {}),
        providerOverrides: overrides,
        env,
        allowedOrigins: studioOrigins(ctx),
        breakpoints,
        startPaused: params.startPaused,
        // The person at the page answers a tool that asks before it runs.
        toolApproval: { interactive: true },
        redactor,
        onModelCall: callRecorder(store, runId),
        onExpertCall: expertRecorder(store, runId),
        ...toolRecorder(store, runId),
      });

      live.track(run, [], { compiled, inputs });
      return { runId, ...(warnings.length ? { warnings } : {}) };
    },

    async 'run.control'({ runId, action, step }) {
      const { run } = live.find(runId);
      if (action === 'pause') run.pause();
      else if (action === 'resume') run.resume();
      else if (action === 'step') run.step(step ?? 'node');
      else run.cancel();
      return { paused: run.paused };
    },

    async 'run.breakpoints'({ runId, breakpoints }) {
      const { run } = live.find(runId);
      run.setBreakpoints(toBreakpoints(breakpoints));
      return {};
    },

    async 'run.editHeld'(params) {
      const { run, source } = live.find(params.runId);
      // Checked before a replay is told how to go on: a refused edit changes nothing.
      const kind = params.kind === 'message' ? 'message' : 'node';
      if (!run.waitingAt.some((at) => at.kind === kind && at.instance === params.instance))
        throw new ApiError(
          kind === 'message'
            ? `no message from ${params.instance} is waiting to be delivered`
            : `node ${params.instance} is not waiting to start`,
        );
      // Under a strict replay every later request holds the edit and is not in the cassette:
      // the person says first how those are answered (the terminal debugger's s/l/c).
      if (run.mode === 'replay') {
        const by = params.beyondCassette;
        if (!by)
          throw new ApiError(
            'this run replays a cassette: the calls after an edit cannot come from it; say whether to simulate the rest or go live',
          );
        if (by === 'live') {
          if (!source)
            throw new ApiError('this run cannot go live: its document is not known here');
          refuseMissingKeys(ctx, source.compiled.plan, {
            simulate: false,
            cassetteMode: 'replay-then-live',
          });
          checkLiveSpend(
            ctx,
            source.compiled,
            source.inputs,
            params.costConfirmed,
            'going live for the rest of this run',
          );
          ctx.secretsChanged();
        }
        run.answerBeyondCassette(by);
      }
      try {
        if (params.kind === 'message') run.editMessage(params.instance, params.text);
        else run.overrideOutput(params.instance, params.outputs);
      } catch (error) {
        // Nothing of that instance is held (any more): the page's view is behind the run.
        throw new ApiError(messageOf(error));
      }
      return { kind: params.kind, instance: params.instance, mode: run.mode };
    },

    async 'run.editHeldTool'(params) {
      const { run } = live.find(params.runId);
      if (run.mode === 'replay')
        throw new ApiError(
          'this run replays a cassette: a changed tool call is not in it; fork the run to change it',
        );
      try {
        if ('deny' in params) run.denyToolCall(params.callId);
        else run.editToolCall(params.callId, params.arguments);
      } catch (error) {
        throw new ApiError(messageOf(error));
      }
      return { callId: params.callId };
    },

    async 'run.editHeldToolResult'(params) {
      const { run } = live.find(params.runId);
      if (run.mode === 'replay')
        throw new ApiError(
          'this run replays a cassette: a changed tool result is not in it; fork the run to change it',
        );
      try {
        run.editToolResult(params.callId, params.result, resultEditor('studio'));
      } catch (error) {
        throw new ApiError(messageOf(error));
      }
      return { callId: params.callId };
    },

    async 'run.context'({ runId, instance, callId }) {
      // A running run's own log (a fork's includes what it kept), else the stored one.
      const events = live.get(runId)?.run.events ?? store.events(storedRun(store, runId).id);
      return agentContext(events, instance, callId);
    },

    async 'run.blob'({ runId, hash }) {
      // A running run's own blobs, else those the store kept (inputs, expert answers).
      const blob = live.get(runId)?.run.blobs.get(hash) ?? store.getBlob(hash);
      if (!blob) throw new ApiError(`run ${runId} holds no blob ${hash.slice(0, 12)}…`);
      return { mime: blob.mime, base64: Buffer.from(blob.bytes).toString('base64') };
    },
  };
}
