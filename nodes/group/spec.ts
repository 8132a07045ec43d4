import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

/**
 * A sub-society: the nodes whose `parentId` is this group run together. Replicating the group
 * runs one copy of all of them per item (NLSOM's 26 artists, each a questioner-answerer-leader
 * trio). Edges cross the group's border directly; what leaves a replicated group is a list.
 */
export const spec = defineNode({
  type: 'group',
  title: 'Group',
  group: 'Structure',
  description: 'A sub-society of nodes that run together; replicate it to run one copy per item.',
  container: 'group',
  data: z.strictObject({ ...baseData }),
  ports: () => ({ inputs: [], outputs: [] }),
});
