/**
 * What an agent instance was sent, as `run.context` gives it (app/runtime/agent-context.ts):
 * every message of one model call with its role and token estimate, the tool calls and results
 * among them, and the answer. Used by app/api/contract.ts.
 */
import { z } from 'zod';

/** A tool call a model asked for: its id, the tool, the arguments as the model wrote them. */
const ToolCallShape = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

/** What an agent instance was sent (app/runtime/agent-context.ts). */
export const AgentContext = z.object({
  instance: z.string(),
  calls: z.array(z.object({ callId: z.string(), seq: z.number(), instance: z.string() })),
  call: z
    .object({
      callId: z.string(),
      seq: z.number(),
      node: z.string(),
      instance: z.string(),
      profile: z.string(),
      provider: z.string(),
      model: z.string(),
      messages: z.array(
        z.object({
          role: z.enum(['system', 'user', 'assistant', 'tool']),
          text: z.string(),
          /** Estimated (about 4 characters a token); images are not counted. */
          tokens: z.number(),
          images: z.number(),
          /** On an assistant message: the tools the model asked to call. */
          toolCalls: z.array(ToolCallShape).optional(),
          /** On a tool message: the id of the call it answers. */
          toolCallId: z.string().optional(),
          /** On a tool message: a person replaced the tool's result; the tool's own, and who. */
          edited: z
            .object({
              original: z.string(),
              by: z.object({ person: z.string(), via: z.enum(['terminal', 'studio']) }),
            })
            .optional(),
        }),
      ),
      tokens: z.number(),
      response: z
        .object({
          text: z.string(),
          promptTokens: z.number(),
          completionTokens: z.number(),
          costUsd: z.number().optional(),
          source: z.enum(['live', 'cassette', 'simulated']),
          simulated: z.boolean(),
          toolCalls: z.array(ToolCallShape).optional(),
        })
        .optional(),
      error: z.string().optional(),
    })
    .optional(),
});
