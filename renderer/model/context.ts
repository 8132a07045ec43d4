/**
 * Which agent instances the context viewer can show (those that called a model, or are calling
 * one now), and which one to show first: the latest instance of the node selected on the canvas
 * or the one the run is held at, whichever happened last, else the latest caller.
 */
import type { RunView } from './run.ts';

export interface ContextOption {
  instance: string;
  node: string;
  /** Answered calls so far. */
  calls: number;
  /** A call of it is under way. */
  calling: boolean;
}

export function contextOptions(view: Pick<RunView, 'instances' | 'live'>): ContextOption[] {
  const calling = new Set(Object.values(view.live).map((c) => c.instance));
  const options: ContextOption[] = [];
  for (const i of Object.values(view.instances)) {
    if (i.calls === 0 && !calling.has(i.instance)) continue;
    options.push({
      instance: i.instance,
      node: i.node,
      calls: i.calls,
      calling: calling.has(i.instance),
    });
  }
  return options;
}

/**
 * The instance to show. `selectionFirst`: the canvas selection changed after the run was last
 * held, so the selected node's latest instance comes before the held one.
 */
export function preferredInstance(
  options: readonly ContextOption[],
  at: { held?: string | undefined; selectedNode?: string | null; selectionFirst?: boolean },
): string | undefined {
  const held = at.held && options.some((o) => o.instance === at.held) ? at.held : undefined;
  const ofNode = at.selectedNode ? options.filter((o) => o.node === at.selectedNode) : [];
  const selected = ofNode.at(-1)?.instance;
  if (at.selectionFirst) return selected ?? held ?? options.at(-1)?.instance;
  return held ?? selected ?? options.at(-1)?.instance;
}
