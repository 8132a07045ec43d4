import { z } from 'zod';
import { baseData, nameSchema } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

/**
 * A sub-society by reference: runs one graph of the document's library, whose input nodes are
 * this node's inputs and whose output nodes its outputs. Replicate it to run one copy per item;
 * the graph may itself hold society nodes (a reference back to itself is refused).
 */
export const spec = defineNode({
  type: 'society',
  title: 'Sub-society',
  group: 'Structure',
  description:
    'Runs a graph of the document’s library as one node: its inputs and outputs are that graph’s input and output nodes.',
  container: 'group',
  data: z.strictObject({
    ...baseData,
    /** The library graph's name (`graphs` in the document), chosen among them in the inspector. */
    graph: nameSchema.meta({ editor: 'library-graph' }),
  }),
  ports: (data, context) => context?.subgraphPorts(data.graph) ?? { inputs: [], outputs: [] },
  subgraph: (data) => data.graph,
  summary: (data) => data.graph,
  // The editor offers the document's graphs; a new node names one to be made.
  initialData: () => ({ graph: 'subsociety' }),
});
