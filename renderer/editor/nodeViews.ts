/**
 * Node types may draw part of their own card and inspector: an optional `nodes/<type>/view.tsx`
 * exporting `view` (a `NodeView`) is found at build time, like the specs, so a node type adds
 * its look, and how its value reads on its card after a run, by adding a file to its folder. Views get the node's parsed data only when it is
 * valid; the generic card and form still show everything else.
 */
import type { ComponentType } from 'react';
import type { ValueHook } from '../model/cardValue.ts';
import { byFolder } from '../model/node-folders.ts';

export interface NodeViewProps<D = Record<string, unknown>> {
  /** The node's id on the canvas. */
  id: string;
  /** The node's data, parsed by its spec's schema (defaults filled). */
  data: D;
}

/** What a node type's `view.tsx` exports as `view`. */
export interface NodeView<D = Record<string, unknown>> {
  /**
   * Drawn on the card, under the summary; on a container, in its header row beside the title
   * (keep it one line high). Shown at full detail only (lod.css hides it when zoomed out).
   */
  card?: ComponentType<NodeViewProps<D>>;
  /** Drawn in the inspector, above the generated form. */
  inspector?: ComponentType<NodeViewProps<D>>;
  /**
   * How the node's latest value reads on its card after a run (a vote's winner, a router's
   * branch), or undefined for the generic summary (renderer/model/cardValue.ts).
   */
  value?: ValueHook<D>;
}

// `@nodes` is the nodes/ folder (vite.config.ts), or a test's folder with fixture types too.
const modules = import.meta.glob<{ view?: NodeView }>('@nodes/*/view.tsx', { eager: true });

const VIEWS: ReadonlyMap<string, NodeView> = byFolder<NodeView>(modules, 'view');

/** The view a node type declares, if it declares one. */
export function viewOf(type: string | undefined): NodeView | undefined {
  return type === undefined ? undefined : VIEWS.get(type);
}
