/**
 * OpenAGI's Table 1 layout, one per planner preset, from an eval's items and what its runs
 * recorded (each item's metric definition, and a paper protocol's invalid plans). `society
 * openagi eval` prints it, and `society eval-show` and `eval-export` print it again from the
 * context the command stores with the eval.
 */
import { z } from 'zod';
import type { RunOutputs, TablePresenter } from '../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalSummary } from '../../eval/types.ts';
import { OPENAGI_CATEGORIES } from '../../experts/openagi.ts';
import { formatTable1, type ItemTask, type MetricDefinition, table1 } from './table1.ts';

/** The kind `society openagi eval` names its table by. */
export const OPENAGI_TABLE1 = 'openagi-table1';

const Context = z.object({
  /** The planner's model (`provider:model`), or "rule planner". */
  model: z.string(),
  /** Whether `--planner` was given: the heading then names each preset. */
  namePresets: z.boolean(),
  variants: z.array(
    z.object({ name: z.string(), planner: z.string(), paperColumn: z.string().nullable() }),
  ),
  tasks: z.number().int().nonnegative(),
  /** Samples in all, when they came from OpenAGI's folders (`--data`). */
  samples: z.number().int().nonnegative().optional(),
  /** Each item's task and category, by item index. */
  items: z.array(z.object({ task: z.number().int(), category: z.enum(OPENAGI_CATEGORIES) })),
});

/** What the layout needs beyond the items, as stored with the eval. */
export type OpenAgiTableContext = z.infer<typeof Context>;

/** The metric definition a run recorded (the metric node's `definition` output), if any. */
export function definitionOf(
  outputs: Record<string, unknown> | undefined,
): MetricDefinition | undefined {
  const d = outputs?.definition;
  if (!d || typeof d !== 'object') return undefined;
  const { kind, name, model, settings, better } = d as Record<string, unknown>;
  return {
    ...(typeof kind === 'string' ? { kind } : {}),
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    ...(settings !== undefined ? { settings } : {}),
    ...(better === 'higher' || better === 'lower' ? { better } : {}),
  };
}

/** Why a paper protocol's plan was invalid (its `plan` output), if it was. */
export function invalidPlanOf(outputs: Record<string, unknown> | undefined): string | undefined {
  const plan = outputs?.plan;
  const invalid =
    plan && typeof plan === 'object' ? (plan as Record<string, unknown>).invalid : undefined;
  return typeof invalid === 'string' ? invalid : undefined;
}

/** Table 1 per planner preset, with the invalid plans and metric definitions its runs recorded. */
export function openAgiTables(
  all: readonly EvalItemRecord[],
  context: OpenAgiTableContext,
  outputs: RunOutputs,
) {
  const taskOf = new Map<number, ItemTask>(context.items.map((t, item) => [item, t]));
  return context.variants.map((v) => {
    const mine = all.filter((it) => it.variant === v.name);
    const definitions = new Map<number, MetricDefinition>();
    const invalidPlans: Array<{ item: number; task: number | undefined; reason: string }> = [];
    for (const it of mine) {
      const recorded = it.runId === undefined ? undefined : outputs(it.runId);
      const d = definitionOf(recorded);
      if (d) definitions.set(it.item, d);
      const reason = invalidPlanOf(recorded);
      if (reason !== undefined)
        invalidPlans.push({ item: it.item, task: taskOf.get(it.item)?.task, reason });
    }
    return {
      variant: v.name,
      planner: v.planner,
      paperColumn: v.paperColumn,
      table: table1(mine, taskOf, definitions),
      invalidPlans,
      definitions: Object.fromEntries(definitions),
    };
  });
}

/** The tables as text, one per planner preset, each with a line for its invalid plans. */
export function openAgiText(
  summary: EvalSummary,
  all: readonly EvalItemRecord[],
  context: OpenAgiTableContext,
  outputs: RunOutputs,
): string {
  return openAgiTables(all, context, outputs)
    .map((t) =>
      [
        formatTable1(
          t.table,
          context.namePresets ? `${context.model} · ${t.planner}` : context.model,
          {
            simulated: summary.simulated,
            tasks: context.tasks,
            ...(context.samples !== undefined ? { samples: context.samples } : {}),
            ...(t.paperColumn ? { paper: t.paperColumn } : {}),
          },
        ),
        ...(t.invalidPlans.length > 0
          ? [
              `${t.invalidPlans.length} invalid plan${t.invalidPlans.length === 1 ? '' : 's'} scored 0 (the paper's rule), e.g. task ${t.invalidPlans[0]!.task}: ${t.invalidPlans[0]!.reason}`,
            ]
          : []),
      ].join('\n'),
    )
    .join('\n\n');
}

export const present: TablePresenter = (summary, items, context, outputs) =>
  openAgiText(summary, items, Context.parse(context), outputs);
