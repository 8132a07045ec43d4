import type { NodeView } from '../../../../renderer/editor/nodeViews.ts';
import type { ShoutData } from './spec.ts';

/** The card shows how loud the node is, in the type's own words. */
export const view: NodeView<ShoutData> = {
  card: ({ id, data }) => (
    <div className="node-summary" data-testid={`shout-volume-${id}`}>
      volume {data.marks}
    </div>
  ),
};
