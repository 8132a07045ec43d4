import { catalogueEntry } from '../../app/experts/catalogue.ts';
import {
  type PlanMapping,
  paperPlan,
  paperPlanningPrompt,
} from '../../app/experts/paper-planner.ts';
import { planText, planToDocument } from '../../app/experts/plan.ts';
import {
  checkOutline,
  entriesFor,
  type PlanCheck,
  type PlanningTask,
  planningPrompt,
  planResponseFormat,
  readPlanAnswer,
  repairMessage,
  rulePlan,
} from '../../app/experts/planner.ts';
import { meanPool } from '../../app/experts/vectors.ts';
import { type NodeContext, type NodeExecutor, notTaken } from '../../app/node-sdk/define.ts';
import type { ChatMessage } from '../../app/providers/types.ts';
import { SIMULATED_PREFIX, simulatedPrefix } from '../../app/schema/simulated.ts';
import { allowedExperts, PLAN_MAX_TOKENS, type PlannerData } from './spec.ts';

/** One plan the model proposed, and what was wrong with it. */
interface Attempt {
  answer: string;
  problems: string[];
}

export const execute: NodeExecutor<PlannerData> = async (ctx) => {
  const data = ctx.data;
  const description = data.task ?? String(ctx.inputs.task ?? '');
  if (description.trim() === '') throw new Error('the planner has no task to plan for');
  const task: PlanningTask = { description, inputs: data.inputs, output: data.output };
  const experts = entriesFor(allowedExperts(data));

  const attempts: Attempt[] = [];
  let check: PlanCheck | undefined;
  let source: 'model' | 'rules' | 'rules (the model’s answers were simulated)' = 'model';
  let simulatedAnswer = false;
  // How a paper protocol read the model's free text into modules (recorded with the plan).
  let mapping: PlanMapping | undefined;
  if (!data.model) {
    check = rulePlan(task, experts);
    source = 'rules';
  } else if (data.protocol !== 'schema') {
    const result = await ctx.callModel({
      profile: data.model,
      messages: paperPlanningPrompt(task, data.protocol, (id) => catalogueEntry(id)?.title ?? id),
      maxTokens: data.maxTokens ?? PLAN_MAX_TOKENS,
      ...(data.temperature === undefined ? {} : { temperature: data.temperature }),
    });
    if (result.simulated) {
      // Made-up text maps to nothing meaningful: plan by the rules, and say so.
      simulatedAnswer = true;
      check = rulePlan(task, experts);
      source = 'rules (the model’s answers were simulated)';
    } else {
      const read = await paperPlan(result.text, task, experts, (text) => embed(ctx, text));
      check = read.check;
      attempts.push({ answer: result.text, problems: check.ok ? [] : check.problems });
      mapping = {
        method: 'sentence-embedding cosine (argmax over module names)',
        model: data.mappingModel,
        steps: read.matches,
      };
      if (!check.ok) {
        // The paper scores an invalid plan 0: no answer, and the reason for whoever scores it.
        const invalid = `invalid plan (${data.protocol}, no retry): ${check.problems.join('; ')}`;
        await ctx.message(invalid);
        return {
          answer: notTaken(invalid),
          plan: { text: '', source, attempts, invalid, mapping },
        };
      }
    }
  } else {
    const messages: ChatMessage[] = planningPrompt(task, experts, data.prompt);
    for (let n = 1; n <= data.maxAttempts; n++) {
      const result = await ctx.callModel({
        profile: data.model,
        messages,
        maxTokens: data.maxTokens ?? PLAN_MAX_TOKENS,
        ...(data.temperature === undefined ? {} : { temperature: data.temperature }),
        responseFormat: planResponseFormat(experts),
      });
      if (result.simulated) simulatedAnswer = true;
      const read = readPlanAnswer(result.text);
      check =
        'error' in read
          ? { ok: false, problems: [read.error] }
          : checkOutline(read.outline, task, experts);
      attempts.push({ answer: result.text, problems: check.ok ? [] : check.problems });
      if (check.ok) break;
      if (result.simulated) {
        // Made-up answers do not improve when told what is wrong: plan by the rules instead,
        // and say so wherever the plan is shown.
        check = rulePlan(task, experts);
        source = 'rules (the model’s answers were simulated)';
        break;
      }
      messages.push({ role: 'assistant', content: result.text });
      messages.push({ role: 'user', content: repairMessage(check.problems) });
    }
  }
  if (!check?.ok) {
    const problems = check && !check.ok ? check.problems : [];
    throw new Error(
      source === 'model'
        ? `no valid plan after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}; the last one: ${problems.join('; ')}`
        : `${source === 'rules' ? '' : 'the model’s answers were simulated, and '}the rule planner found no valid plan: ${problems.join('; ')}`,
    );
  }

  const plan = check.plan;
  const simulated = simulatedAnswer;
  const text = `${simulatedPrefix(simulated)}${planText(plan)}`;
  const expertData = (module: string): Record<string, unknown> => ({
    ...data.expert,
    ...(data.preferLocal && catalogueEntry(module)?.local ? { backend: 'local' } : {}),
  });
  const document = planToDocument(plan, {
    name: `plan of ${ctx.nodeId}`,
    description: `${simulatedPrefix(simulated)}Planned by ${source} for: ${description}`,
    expert: data.expert,
  });
  for (const node of document.nodes) {
    if (node.type === 'expert') Object.assign(node.data, expertData(node.data.module as string));
  }
  await ctx.message(simulated ? `${SIMULATED_PREFIX}plan: ${planText(plan)}` : `plan: ${text}`);
  const inputs = Object.fromEntries(data.inputs.map((p) => [p.name, ctx.inputs[p.name]]));
  const outputs = await ctx.runGraph(document, inputs);
  return {
    answer: outputs.answer,
    plan: { text, source, attempts, document, ...(mapping ? { mapping } : {}) },
  };
};

/** A text's sentence vector from the mapping model (Hugging Face feature extraction). */
async function embed(ctx: NodeContext<PlannerData>, text: string): Promise<number[]> {
  const provider =
    typeof ctx.data.expert?.provider === 'string' ? ctx.data.expert.provider : 'hf-inference';
  const answer = await ctx.callExpert({
    backend: 'huggingface',
    provider,
    task: 'feature-extraction',
    model: ctx.data.mappingModel,
    inputs: { text },
  });
  const out = answer.output;
  if (Array.isArray(out) && out.every((x) => typeof x === 'number')) return out as number[];
  if (Array.isArray(out) && out.every((r) => Array.isArray(r))) return meanPool(out as number[][]);
  throw new Error(`the mapping model ${ctx.data.mappingModel} gave no vector`);
}
