/**
 * The router's card after a run: the branch it took and the ones it did not, instead of the
 * generic summary of the value it passed on. Found like the spec (renderer/editor/nodeViews.ts).
 */
import type { NodeView } from '../../renderer/editor/nodeViews.ts';
import type { ValueHook } from '../../renderer/model/cardValue.ts';
import type { RouterData } from './spec.ts';

/** `branch urgent · not taken: normal, else`: the router takes one output, the rest not. */
export const routerValue: ValueHook<RouterData> = (value) => {
  const taken = Object.keys(value.outputs)[0];
  if (taken === undefined) return undefined;
  const others = Object.keys(value.notTaken ?? {});
  return {
    kind: 'choice',
    label: 'branch',
    value: taken,
    ...(others.length ? { detail: `not taken: ${others.join(', ')}` } : {}),
  };
};

export const view: NodeView<RouterData> = { value: routerValue };
