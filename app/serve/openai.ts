/**
 * The OpenAI-compatible endpoint: every served society is a model. A chat completion runs the
 * society with the last user message as its first text input (or the one its document's
 * `serve.chat` names, which may also take the earlier turns and the system message: chat-map.ts)
 * and answers with its first text output (or the one named); `usage` is the society's total tokens over all its calls. With `stream: true` the
 * answer comes as `chat.completion.chunk` events: the role at once, the output as its model call
 * streams it when it can be (chat-stream.ts), else whole when the run ends, then a last chunk
 * with the finish reason and usage, then `data: [DONE]`.
 */
import type { RunResult } from '../runtime/engine.ts';
import { type ServeContext, societyNamed } from './api.ts';
import { BUDGET_HEADER, chatBudget } from './budget.ts';
import { chatFields } from './catalog.ts';
import { chatValues } from './chat-map.ts';
import { AnswerStream, streamedNode } from './chat-stream.ts';
import { startedOrEnded } from './context.ts';
import { HttpError } from './errors.ts';
import type { Route } from './http.ts';
import { outputText, runFailure } from './results.ts';
import { ChatRequest } from './schemas.ts';

const CREATED = Math.floor(Date.now() / 1000);

/** `GET /v1/models` and `POST /v1/chat/completions`. */
export function openAiRoutes(ctx: ServeContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/models',
      handler: ({ json }) =>
        json(200, {
          object: 'list',
          data: [...ctx.societies.values()].map((society) => ({
            id: society.name,
            object: 'model',
            created: CREATED,
            owned_by: 'society',
            // Which inputs a chat's messages feed and which output answers.
            chat: chatFields(society),
          })),
        }),
    },
    {
      method: 'POST',
      path: '/v1/chat/completions',
      handler: async ({ req, body, json, sse, signal }) => {
        const request = await body(ChatRequest);
        const budget = chatBudget(request, req.headers[BUDGET_HEADER]);
        const society = societyNamed(ctx, request.model, 'model');
        const fields = chatFields(society);
        const { output } = fields;
        const imageOptional = society.inputs.some((f) => f.name === fields.image && f.optional);
        const chat = chatValues(society.name, fields, request.messages, imageOptional);
        const node =
          request.stream && output ? streamedNode(society.compiled.plan, output) : undefined;
        const served = submitChat(
          () =>
            ctx.runner.submit(society, chat.values, {
              budget,
              ...(node ? { streamNodes: [node] } : {}),
            }),
          chat.fields,
        );
        const id = `chatcmpl-${served.id}`;
        const created = Math.floor(Date.now() / 1000);
        const base = { id, created, model: society.name };
        if (request.stream) {
          const stream = sse();
          const chunk = (delta: Record<string, unknown>, finish: string | null, extra = {}) =>
            stream.send({
              ...base,
              object: 'chat.completion.chunk',
              choices: [{ index: 0, delta, finish_reason: finish }],
              ...extra,
            });
          chunk({ role: 'assistant', content: '' }, null);
          signal.addEventListener('abort', () => ctx.runner.cancel(served.id));
          const answer = new AnswerStream(node);
          const run = await startedOrEnded(served);
          const unsubscribe = run?.subscribe(
            (event) => {
              const piece = answer.take(event);
              if (piece && !signal.aborted) chunk({ content: piece }, null);
            },
            { replay: true },
          );
          const result = await served.done;
          unsubscribe?.();
          if (signal.aborted) return;
          const rest =
            result.status === 'succeeded' ? answer.finish(answerOf(result, output)) : undefined;
          if (result.status !== 'succeeded') {
            const field = failureField(result);
            stream.send({ error: { message: runFailure(result), ...(field ? { field } : {}) } });
          } else if (rest === undefined) {
            stream.send({
              error: {
                message: `the society's answer differs from the text streamed (a model call was retried mid-answer); run ${result.runId} holds the answer (GET /runs/${result.runId})`,
              },
            });
          } else {
            if (rest) chunk({ content: rest }, null);
            chunk({}, 'stop', { usage: usageOf(result) });
          }
          stream.raw('data: [DONE]\n\n');
          stream.end();
          return;
        }
        signal.addEventListener('abort', () => ctx.runner.cancel(served.id));
        const result = await served.done;
        if (signal.aborted) return;
        // The SDKs retry a 5xx: a failed run must not be run again behind the client's back.
        if (result.status !== 'succeeded')
          throw new HttpError(502, runFailure(result), failureField(result), {
            'x-should-retry': 'false',
          });
        json(200, {
          ...base,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: answerOf(result, output) },
              finish_reason: 'stop',
            },
          ],
          usage: usageOf(result),
        });
      },
    },
  ];
}

/**
 * Starts the chat's run; an input refused (an image that is not one) names the request field
 * it came from (`messages.3.content.1.image_url`), not the run input the client never named.
 */
function submitChat<T>(submit: () => T, fields: Record<string, string>): T {
  try {
    return submit();
  } catch (error) {
    const input =
      error instanceof HttpError ? /^inputs\.(.+)$/.exec(error.field ?? '')?.[1] : undefined;
    const field = input === undefined ? undefined : fields[input];
    if (!field) throw error;
    const refused = error as HttpError;
    throw new HttpError(refused.status, refused.message, field, refused.headers);
  }
}

/** The society's answer: its chat output as text, labelled when simulated (results.ts). */
function answerOf(result: RunResult, output: string | undefined): string {
  return outputText(result, output === undefined ? undefined : result.outputs[output]);
}

function usageOf(result: RunResult) {
  return {
    prompt_tokens: result.usage.promptTokens,
    completion_tokens: result.usage.completionTokens,
    total_tokens: result.usage.totalTokens,
  };
}

/** `budget` for a run its budget stopped, so a client sees which request field to raise. */
function failureField(result: RunResult): string | undefined {
  return result.error?.includes('budget exceeded') ? 'budget' : undefined;
}
