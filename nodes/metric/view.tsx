/**
 * The metric's card after a run shows its score under the name of the definition that produced
 * it, with the direction and model; its inspector lists what the settings compute. Found like
 * the spec (renderer/editor/nodeViews.ts).
 */
import type { NodeView, NodeViewProps } from '../../renderer/editor/nodeViews.ts';
import type { ValueHook } from '../../renderer/model/cardValue.ts';
import { definitionLines, metricCardValue } from './card-value.ts';
import { metricDefinition } from './definition.ts';
import type { MetricData } from './spec.ts';

const metricValue: ValueHook<MetricData> = (value) => metricCardValue(value.outputs);

/** The inspector's account of what the settings compute: the definition every score carries. */
function MetricInspector({ data }: NodeViewProps<MetricData>) {
  const definition = metricDefinition(data);
  return (
    <section className="muted small" aria-label="Metric definition" data-testid="metric-definition">
      <p>
        Computes <strong>{definition.name}</strong>
      </p>
      <ul>
        {definitionLines(definition).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </section>
  );
}

export const view: NodeView<MetricData> = { value: metricValue, inspector: MetricInspector };
