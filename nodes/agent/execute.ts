import type { LoopView, NodeExecutor, ToolOffer } from '../../app/node-sdk/define.ts';
import type { AnswerShape, ChatContentPart, ChatMessage } from '../../app/providers/types.ts';
import { isImageValue } from '../../app/schema/blob-refs.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
import { parseAnswer } from './parse.ts';
import type { AgentData } from './spec.ts';

export const execute: NodeExecutor<AgentData> = async (ctx) => {
  const data = ctx.data;
  const vars = { ...ctx.bindings, ...ctx.inputs, loop: ctx.loop };
  const profile = data.model.includes('{{')
    ? (await ctx.renderTemplate(data.model, vars, 'model')).trim()
    : data.model;
  const system = data.role ? await ctx.renderTemplate(data.role, vars, 'role') : '';
  const user = await userPrompt(ctx, vars);

  const messages: ChatMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push(...remembered(ctx.memory, data.history));
  const image = ctx.inputs.image;
  const content: string | ChatContentPart[] =
    data.vision && isImageValue(image)
      ? [
          { type: 'text', text: user },
          { type: 'image', url: ctx.imageUrl(image), mime: image.mime, sha256: image.$image },
        ]
      : user;
  messages.push({ role: 'user', content });

  const tools =
    data.tools.length > 0
      ? await ctx.tools(
          data.tools.map(
            (t): ToolOffer =>
              t.graph
                ? {
                    source: { kind: 'graph', graph: t.graph },
                    ...(t.name ? { name: t.name } : {}),
                    ...(t.description ? { description: t.description } : {}),
                    // The agent's own inputs a graph tool takes by name (an image) go to each call.
                    given: ctx.inputs,
                  }
                : {
                    source: { kind: 'mcp', profile: t.mcp ?? '' },
                    ...(t.allow ? { allow: t.allow } : {}),
                  },
          ),
        )
      : [];
  const ask = () =>
    ctx.callModel({
      profile,
      messages,
      temperature: data.temperature,
      maxTokens: data.maxTokens,
      stream: data.stream,
      ...(tools.length > 0 ? { tools } : {}),
      ...shapeOf(ctx),
    });
  let result = await ask();
  // Model → tools → model: each round answers every call of the last answer (concurrently; the
  // engine limits how many run at once), until the model answers in words.
  const turn: ChatMessage[] = [];
  for (let round = 0; result.toolCalls && result.toolCalls.length > 0; round++) {
    if (round >= data.maxToolRounds) {
      throw new Error(
        `the model still asked for tools after ${data.maxToolRounds} tool rounds (maxToolRounds)`,
      );
    }
    const calls = result.toolCalls;
    const results = await Promise.all(
      calls.map((call) =>
        ctx.callTool(call, data.maxToolCalls === undefined ? {} : { maxCalls: data.maxToolCalls }),
      ),
    );
    const said: ChatMessage[] = [
      { role: 'assistant', content: result.text, toolCalls: calls },
      ...results.map(
        (r, i): ChatMessage => ({ role: 'tool', toolCallId: calls[i]!.id, content: r.content }),
      ),
    ];
    messages.push(...said);
    turn.push(...said);
    result = await ask();
  }
  ctx.memory.push({ role: 'user', content: user }, ...turn, {
    role: 'assistant',
    content: result.text,
  });
  // Revision and ballot answers are read by the engine; the usual parse applies to normal turns.
  const value = ctx.loop?.phase ? result.text.trim() : parseAnswer(result.text, data.parse);
  // Parsed JSON loses the label the answer's text began with; its message keeps it.
  await ctx.message(
    typeof value === 'string' ? value : simulatedPrefix(result.simulated) + JSON.stringify(value),
  );
  return { text: value };
};

/**
 * The answer shape this turn needs, for simulated runs: what its `parse` reads (JSON, an option
 * letter) or, for plain text, what the nodes it feeds ask of it (a vote's ballot). Revision and
 * ballot turns in a mindstorm are read from their own prompts.
 */
function shapeOf(ctx: Parameters<NodeExecutor<AgentData>>[0]): { answerShape?: AnswerShape } {
  if (ctx.loop?.phase) return {};
  switch (ctx.data.parse) {
    case 'json':
      return { answerShape: { kind: 'json' } };
    case 'choice':
      return { answerShape: { kind: 'choice' } };
    case 'text':
      if (ctx.answerShape) return { answerShape: ctx.answerShape };
      return finishing(ctx.loop);
    default:
      return {};
  }
}

/**
 * For simulated runs of an agent whose word ends its loop (a role-play's user saying the task
 * is done): it says the first such word alone in round ⌈maxRounds / 3⌉ (round 2 at the
 * earliest, if the loop has one), and otherwise answers as the simulator would, so a simulated
 * loop ends on its word as a real one might instead of always running to its last round.
 */
function finishing(loop: LoopView | undefined): { answerShape?: AnswerShape } {
  const word = loop?.stopKeywords?.[0];
  if (!loop || word === undefined) return {};
  const round = Math.max(Math.min(2, loop.maxRounds), Math.ceil(loop.maxRounds / 3));
  if (loop.stage !== 'round' || loop.round < round) return {};
  return { answerShape: { kind: 'custom', answer: () => word } };
}

/**
 * The user message for this turn: the agent's prompt, or the loop's own words for the turn
 * when it has any (a mindstorm's right to know around the prompt, or its revision and ballot
 * questions instead of it: the mindstorm's `prompts`).
 */
async function userPrompt(
  ctx: Parameters<NodeExecutor<AgentData>>[0],
  vars: Record<string, unknown>,
): Promise<string> {
  const loop = ctx.loop;
  const own = loop?.phase ? undefined : await ctx.renderTemplate(ctx.data.prompt, vars, 'prompt');
  const words = loop?.wording;
  if (!words) return own ?? '';
  return ctx.renderTemplate(
    words.template,
    { ...words.vars, ...(own === undefined ? {} : { prompt: own }) },
    words.field,
  );
}

/**
 * What a history policy sends of the memory: the last N exchanges, each from its user message
 * to the answer, the tool calls and results between them included (a tool result never
 * arrives without the call it answers).
 */
function remembered(memory: ChatMessage[], policy: AgentData['history']): ChatMessage[] {
  if (policy === 'none' || policy === 0) return [];
  if (policy === 'all') return [...memory];
  const starts = memory.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  if (starts.length <= policy) return [...memory];
  return memory.slice(starts[starts.length - policy]);
}
