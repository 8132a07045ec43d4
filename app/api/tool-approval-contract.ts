/**
 * The debugger's answer to a tool call held before it runs (spread into app/api/contract.ts):
 * the person at the page edits its arguments or denies it; or, held after it returned, replaces
 * the result the model reads.
 */
import { z } from 'zod';

export const toolApprovalContract = {
  /**
   * Changes a tool call held before it runs (a tool whose policy is ask, a tool breakpoint):
   * new arguments as JSON text, checked against the tool's schema, or a denial (the tool never
   * runs; the model reads that it was denied). The change takes effect when the run goes on.
   */
  'run.editHeldTool': {
    params: z.union([
      z.object({
        runId: z.string(),
        callId: z.string().min(1).max(200),
        arguments: z.string().max(200_000),
      }),
      z.object({ runId: z.string(), callId: z.string().min(1).max(200), deny: z.literal(true) }),
    ]),
    result: z.object({ callId: z.string() }),
  },
  /**
   * Replaces the result of a tool call held after it returned (a `tool-result` breakpoint, a
   * step by tool), before the model reads it: the model reads `result` when the run goes on; the
   * run's record keeps the tool's own and who changed it.
   */
  'run.editHeldToolResult': {
    params: z.object({
      runId: z.string(),
      callId: z.string().min(1).max(200),
      result: z.string().max(2_000_000),
    }),
    result: z.object({ callId: z.string() }),
  },
} as const;
