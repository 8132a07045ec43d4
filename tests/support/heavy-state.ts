/**
 * A `state` node whose rules are inside the size limits yet cost seconds a round: `keys` keys
 * under `variables` rules of 1,989 parts each (a sum of 994 reads). At about half a microsecond
 * a part, 600 keys × 10 variables is some ten seconds of rules for one round.
 */
import type { GraphDocument } from '../../app/schema/document.ts';

/** A rule of 1,989 parts, as long as a rule may be. */
export const LONG_RULE = { '+': Array.from({ length: 994 }, () => ({ var: 'prev.v0' })) };

/** A document of one heavy state node and its output. */
export function heavyStateDocument(
  options: { keys?: number; variables?: number; computeMs?: number } = {},
): GraphDocument {
  const { keys = 600, variables = 10, computeMs = 10_000 } = options;
  return {
    version: 1,
    name: 'heavy state',
    models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
    settings: { limits: { computeMs } },
    nodes: [
      {
        id: 'mood',
        type: 'state',
        position: { x: 0, y: 0 },
        data: {
          keys: Array.from({ length: keys }, (_, i) => `agent${i}`),
          variables: Array.from({ length: variables }, (_, i) => ({
            name: `v${i}`,
            update: LONG_RULE,
          })),
        },
      },
      { id: 'state', type: 'output', position: { x: 300, y: 0 }, data: { name: 'state' } },
    ],
    edges: [
      {
        id: 'e',
        source: 'mood',
        sourceHandle: 'state',
        target: 'state',
        targetHandle: 'value',
      },
    ],
  } as GraphDocument;
}
