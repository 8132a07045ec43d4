/**
 * A read-only view of a planned graph for a node type's `checkGraph` hook: what a container
 * holds and what the nodes it names are, without the compiler's own types.
 */
import type { Stage } from '../schema/document.ts';

/** One node as a graph check sees it. */
export interface GraphNodeView {
  id: string;
  type: string;
  /** Parsed data, defaults filled. */
  data: Record<string, unknown>;
  /** The container it sits in (`undefined` at the top). */
  parent?: string;
  /** When it runs inside a loop. */
  stage: Stage;
  replicated: boolean;
}

export interface GraphView {
  node(id: string): GraphNodeView | undefined;
  /** The nodes directly inside a container, in document order. */
  children(id: string): GraphNodeView[];
}

/** A problem a graph check found, with a path relative to the node (`['data', 'leader']`). */
export interface GraphProblem {
  path: PropertyKey[];
  message: string;
}
