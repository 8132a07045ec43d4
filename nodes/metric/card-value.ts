/**
 * How a metric's score and definition read on its card and in its inspector (view.tsx draws
 * them): the score under the name of the definition that produced it, with the direction and
 * model beside it, since a ViT distance of 0.3 and a BERTScore of 0.3 mean opposite things.
 * Pure, so it is tested without a page.
 */
import type { MetricDefinition } from './definition.ts';

/** `BERTScore F1` `0.8123` · `higher is better · microsoft/deberta-xlarge-mnli`; else undefined. */
export function metricCardValue(
  outputs: Record<string, unknown>,
): { kind: 'choice'; label: string; value: string; detail: string } | undefined {
  const { score, definition, report } = outputs as {
    score?: unknown;
    definition?: Partial<MetricDefinition>;
    report?: { simulated?: boolean };
  };
  if (typeof score !== 'number' || typeof definition?.name !== 'string') return undefined;
  const detail = [
    `${definition.better ?? 'higher'} is better`,
    ...(definition.model ? [definition.model] : []),
    ...(report?.simulated ? ['simulated'] : []),
  ].join(' · ');
  return { kind: 'choice', label: definition.name, value: score.toFixed(4), detail };
}

/** The definition's settings as `name: value` lines, in the order the definition gives them. */
export function definitionLines(definition: MetricDefinition): string[] {
  return [
    ...(definition.model ? [`model: ${definition.model}`] : []),
    ...Object.entries(definition.settings).map(
      ([name, value]) => `${name}: ${value === null ? 'none' : String(value)}`,
    ),
    `${definition.better} is better`,
  ];
}
