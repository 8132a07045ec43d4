import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

/** The input ports, in order: `a`, `b`, `c`… */
export function mergePorts(count: number): string[] {
  return [...Array(count).keys()].map((i) => String.fromCharCode(97 + i));
}

export const mergeData = z.strictObject({
  ...baseData,
  /** How many inputs (`a`, `b`, `c`…). */
  inputs: z.number().int().min(2).max(16).default(2),
  /** `first`: the first input that arrived, in port order; `all`: every one that did, in a list. */
  mode: z.enum(['first', 'all']).default('first'),
});
export type MergeData = z.infer<typeof mergeData>;

/**
 * Joins branches again: runs with whichever of its inputs arrived (the others were on branches
 * not taken) and hands on the first of them, or all of them.
 */
export const spec = defineNode({
  type: 'merge',
  title: 'Merge',
  group: 'Flow',
  description:
    'Joins branches: runs with whichever inputs arrived (a router’s branch taken) and passes on the first of them, or all of them as a list.',
  data: mergeData,
  inputs: 'any',
  ports: (data) => ({
    inputs: mergePorts(data.inputs).map((name) => ({ name, modality: 'any' as const })),
    outputs: [
      {
        name: 'value',
        modality: 'any',
        description:
          data.mode === 'first'
            ? 'the first input that arrived'
            : 'the inputs that arrived, in port order',
      },
      { name: 'from', modality: 'list<text>', description: 'the ports whose inputs arrived' },
    ],
  }),
  callsPerRun: () => 0,
  passesShape: () => true,
  summary: (data) => `${data.mode} of ${mergePorts(data.inputs).join(', ')}`,
});
