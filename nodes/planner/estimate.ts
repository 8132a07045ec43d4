/**
 * What a planner sends, for the estimate before a run, built with the functions that build its
 * prompts at run time: the planning conversation (task, inputs, the expert table) once, then,
 * in the worst case only, each repair attempt with the refused answers and what was wrong; and
 * the expert calls (local operations included, as a run counts them) of the plan the rule
 * planner makes for the task: a model's plan is not known before it answers.
 */

import { catalogueEntry } from '../../app/experts/catalogue.ts';
import { paperPlanningPrompt } from '../../app/experts/paper-planner.ts';
import {
  entriesFor,
  type PlanningTask,
  planningPrompt,
  readPlanAnswer,
  repairMessage,
  rulePlan,
} from '../../app/experts/planner.ts';
import type { CallEstimateContext, EstimatedCall } from '../../app/node-sdk/estimate.ts';
import type { ChatMessage } from '../../app/providers/types.ts';
import { allowedExperts, PLAN_MAX_TOKENS, type PlannerData } from './spec.ts';

/** The calls one copy of a planner makes in a run. */
export function plannerCalls(ctx: CallEstimateContext<PlannerData>): EstimatedCall[] {
  const calls = planCalls(ctx);
  return ctx.executions.flatMap(() => calls);
}

/** Tokens of a conversation's text, counted as a provider with no usage counts them. */
function conversationTokens(ctx: CallEstimateContext<PlannerData>, messages: ChatMessage[]) {
  return ctx.tokens(
    messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n'),
  );
}

function planCalls(ctx: CallEstimateContext<PlannerData>): EstimatedCall[] {
  const { data } = ctx;
  const experts = entriesFor(allowedExperts(data));
  const task: PlanningTask = {
    description: data.task ?? '',
    inputs: data.inputs,
    output: data.output,
  };
  const calls: EstimatedCall[] = [];
  if (data.model && data.protocol !== 'schema') {
    // One attempt, then each step and each module name embedded for the mapping (steps unknown
    // before the answer: counted as the rule plan's length).
    const messages = paperPlanningPrompt(
      task,
      data.protocol,
      (id) => catalogueEntry(id)?.title ?? id,
    );
    calls.push({
      promptTokens:
        conversationTokens(ctx, messages) + (data.task ? 0 : ctx.portTokens(ctx.node, 'task')),
      completionTokens: ctx.answerLength(data.maxTokens ?? PLAN_MAX_TOKENS),
    });
    const rule = rulePlan(task, experts);
    const steps = rule.ok ? rule.plan.steps.length : 1;
    for (let n = 0; n < experts.length + steps; n++)
      calls.push({ phase: 'mapping', promptTokens: 0, expert: { model: data.mappingModel } });
  } else if (data.model) {
    const completionTokens = ctx.answerLength(data.maxTokens ?? PLAN_MAX_TOKENS);
    // The values themselves never reach the planning model, only the task and the inputs' names.
    const first =
      conversationTokens(ctx, planningPrompt(task, experts, data.prompt)) +
      (data.task ? 0 : ctx.portTokens(ctx.node, 'task'));
    calls.push({ promptTokens: first, completionTokens });
    const refused = readPlanAnswer('');
    const repair = ctx.tokens(repairMessage('error' in refused ? [refused.error] : []));
    for (let n = 2; n <= data.maxAttempts; n++) {
      calls.push({
        phase: 'repair',
        retry: true,
        promptTokens: first + (n - 1) * (completionTokens + repair),
        completionTokens,
      });
    }
  }
  const plan = rulePlan(task, experts);
  if (plan.ok) {
    for (const step of plan.plan.steps) {
      const entry = catalogueEntry(step.module);
      const local = data.preferLocal && entry?.local;
      const model = local ? `local:${local}` : (entry?.models.default ?? step.module);
      calls.push({ phase: 'plan', promptTokens: 0, expert: { model } });
    }
  }
  return calls;
}
