import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { AnswerShape } from '../../app/providers/types.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
import { readScore, readScores } from './scores.ts';
import { type FilterData, promptOf } from './spec.ts';

export const execute: NodeExecutor<FilterData> = async (ctx) => {
  const data = ctx.data;
  const actions = actionList(ctx.inputs.actions).slice(0, data.maxActions);
  if (actions.length === 0 || !data.enabled) {
    return {
      kept: actions,
      removed: [],
      scores: actions.map((action) => ({ action, score: null })),
    };
  }
  const vars = { ...ctx.bindings, ...ctx.inputs, actions, loop: ctx.loop };
  let simulated = false;
  const ask = async (action: string | undefined, shape: AnswerShape) => {
    const prompt = await ctx.renderTemplate(
      promptOf(data),
      action === undefined ? vars : { ...vars, action },
      'prompt',
    );
    const result = await ctx.callModel({
      profile: data.model,
      messages: [{ role: 'user', content: prompt }],
      temperature: data.temperature,
      maxTokens: data.maxTokens,
      answerShape: shape,
    });
    simulated ||= result.simulated === true;
    return result.text;
  };

  let scores: Array<number | undefined>;
  if (data.mode === 'batched') {
    const answer = await ask(undefined, {
      kind: 'custom',
      answer: (_request, draw) => JSON.stringify({ scores: actions.map(() => 1 + draw(5)) }),
    });
    scores = readScores(answer, actions);
  } else {
    scores = [];
    for (const action of actions) {
      const answer = await ask(action, {
        kind: 'custom',
        answer: (_request, draw) => String(1 + draw(5)),
      });
      scores.push(readScore(answer));
    }
  }
  const { kept, removed, table } = sift(actions, scores, data.threshold, data.keepAtLeast);
  await ctx.message(
    `${simulatedPrefix(simulated)}kept ${kept.length} of ${actions.length} actions` +
      (removed.length > 0 ? `; removed: ${removed.join('; ')}` : ''),
  );
  return { kept, removed, scores: table };
};

/**
 * The actions that stay: those scored at or above the threshold, in their order; an action
 * whose score could not be read stays (the filter only removes what it judged). When fewer
 * than `keepAtLeast` stay, the best scored of the rest come back.
 */
export function sift(
  actions: readonly string[],
  scores: ReadonlyArray<number | undefined>,
  threshold: number,
  keepAtLeast: number,
): {
  kept: string[];
  removed: string[];
  table: Array<{ action: string; score: number | null }>;
} {
  const table = actions.map((action, i) => ({ action, score: scores[i] ?? null }));
  const stays = new Set(
    table.flatMap((row, i) => (row.score === null || row.score >= threshold ? [i] : [])),
  );
  if (stays.size < keepAtLeast) {
    const best = table
      .map((row, i) => ({ i, score: row.score ?? 0 }))
      .filter(({ i }) => !stays.has(i))
      .sort((a, b) => b.score - a.score || a.i - b.i);
    for (const { i } of best.slice(0, keepAtLeast - stays.size)) stays.add(i);
  }
  return {
    kept: actions.filter((_, i) => stays.has(i)),
    removed: actions.filter((_, i) => !stays.has(i)),
    table,
  };
}

function actionList(value: unknown): string[] {
  const items = Array.isArray(value) ? value.flat(2) : value === undefined ? [] : [value];
  return items
    .map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
