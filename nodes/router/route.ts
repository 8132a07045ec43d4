/**
 * The router's pure parts: its rules, a task the engine runs within the run's compute limit
 * (app/node-sdk/compute.ts), and how a model's answer is read as one of its labels.
 */
import { defineComputeTask } from '../../app/node-sdk/compute.ts';
import { compileRule, ruleParts } from '../../app/node-sdk/rules.ts';

/** What the rules read. */
export interface RouteInput {
  rules: Array<{ output: string; when: unknown }>;
  data: Record<string, unknown>;
}

/** The index of the first rule whose condition holds, or -1. */
export const firstMatch = defineComputeTask({
  module: import.meta.url,
  name: 'firstMatch',
  run: ({ rules, data }: RouteInput): number => {
    for (const [index, rule] of rules.entries()) {
      if (truthy(compileRule(rule.when)(data))) return index;
    }
    return -1;
  },
  steps: ({ rules }: RouteInput) => rules.reduce((sum, r) => sum + ruleParts(r.when), 1),
});

/** JsonLogic's truth: empty lists are false, like 0, '' and null. */
function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/**
 * The label a model's answer names: the whole answer (case, quotes and a final full stop
 * aside), else the only label it says as a word. Undefined when it names none or several.
 */
export function readLabel(answer: string, labels: readonly string[]): string | undefined {
  const plain = answer
    .trim()
    .replace(/^["'`*\s]+|["'`*.!\s]+$/g, '')
    .toLowerCase();
  const exact = labels.find((l) => l.toLowerCase() === plain);
  if (exact) return exact;
  const said = labels.filter((l) =>
    new RegExp(
      `(^|[^\\p{L}\\p{N}_-])${escapeRegExp(l.toLowerCase())}($|[^\\p{L}\\p{N}_-])`,
      'u',
    ).test(answer.toLowerCase()),
  );
  return said.length === 1 ? said[0] : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
