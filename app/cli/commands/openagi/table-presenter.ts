/**
 * OpenAGI's Table 1 layout printed again from a stored eval (`society eval-show`, `eval-export`):
 * the context `society openagi eval` stores with it is the planner, the task count and each
 * item's category.
 */
import { z } from 'zod';
import type { TablePresenter } from '../../../eval/table-presenters.ts';
import { OPENAGI_CATEGORIES } from '../../../experts/openagi.ts';
import { formatTable1, table1 } from './table1.ts';

/** The kind `society openagi eval` names its table by. */
export const OPENAGI_TABLE1 = 'openagi-table1';

const Context = z.object({
  planner: z.string(),
  tasks: z.number().int().nonnegative(),
  categories: z.array(z.enum(OPENAGI_CATEGORIES)),
});

/** What the layout needs beyond the items, as stored with the eval. */
export type OpenAgiTableContext = z.infer<typeof Context>;

export const present: TablePresenter = (summary, items, context) => {
  const { planner, tasks, categories } = Context.parse(context);
  const categoryOf = new Map(categories.map((category, item) => [item, category]));
  return formatTable1(table1(items, categoryOf), planner, { simulated: summary.simulated, tasks });
};
