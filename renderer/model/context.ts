/**
 * Which agent instances the context viewer can show (those that called a model, or are calling
 * one now), and which one to show first: the one the run is held at, else the latest instance
 * of the node selected on the canvas, else the latest caller.
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

export function preferredInstance(
  options: readonly ContextOption[],
  at: { held?: string; selectedNode?: string | null },
): string | undefined {
  if (at.held && options.some((o) => o.instance === at.held)) return at.held;
  if (at.selectedNode) {
    const ofNode = options.filter((o) => o.node === at.selectedNode);
    if (ofNode.length) return ofNode.at(-1)!.instance;
  }
  return options.at(-1)?.instance;
}
