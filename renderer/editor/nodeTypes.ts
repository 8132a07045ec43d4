import type { NodeTypes } from '@xyflow/react';
import { SPECS } from '../model/registry.ts';
import { ContainerNode } from './ContainerNode.tsx';
import { SocietyNode } from './SocietyNode.tsx';

/**
 * Built once, at module scope, from the specs: React Flow re-mounts every node if this object
 * changes between renders. Unknown types fall back to the plain node, which says so.
 */
export const nodeTypes: NodeTypes = Object.fromEntries([
  ['default', SocietyNode],
  ...[...SPECS.values()].map((spec) => [
    spec.type,
    spec.container && !spec.subgraph ? ContainerNode : SocietyNode,
  ]),
]);
