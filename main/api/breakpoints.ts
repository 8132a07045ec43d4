/** The contract's breakpoints as the debugger's (app/runtime/debugger.ts). */
import type { z } from 'zod';
import type { ApiContract } from '../../app/api/contract.ts';
import type { Breakpoint } from '../../app/runtime/debugger.ts';
import { RUN_EVENT_TYPES, type RunEventType } from '../../app/runtime/events.ts';
import { ApiError } from './errors.ts';

/** Every event type, for checking `{ event }` breakpoints. */
const EVENT_TYPES = new Set<string>(Object.keys(RUN_EVENT_TYPES));

/** The contract's breakpoints as the debugger's; an unknown event type is refused. */
export function toBreakpoints(
  breakpoints: z.output<ApiContract['run.breakpoints']['params']>['breakpoints'],
): Breakpoint[] {
  return breakpoints.map((b) => {
    if ('event' in b) {
      if (!EVENT_TYPES.has(b.event)) {
        throw new ApiError(
          `breakpoint event "${b.event}" is not a run event type (one of: ${[...EVENT_TYPES].join(', ')})`,
        );
      }
      return { event: b.event as RunEventType };
    }
    if ('message' in b) {
      return {
        message: {
          ...(b.message.from !== undefined ? { from: b.message.from } : {}),
          ...(b.message.contains !== undefined ? { contains: b.message.contains } : {}),
        },
      };
    }
    if ('round' in b) return { round: b.round, ...(b.loop !== undefined ? { loop: b.loop } : {}) };
    if ('tool' in b) return { tool: b.tool };
    if ('toolResult' in b) return { toolResult: b.toolResult };
    return { node: b.node };
  });
}
