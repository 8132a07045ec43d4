/**
 * NLSOM's Table 4 layout (A-OKVQA accuracy) printed again from a stored eval (`society
 * eval-show`, `eval-export`): the context `society nlsom eval` stores with it is which items had
 * no photo, the line saying so, and the values each structure ran with.
 */
import { z } from 'zod';
import type { TablePresenter } from '../../../eval/table-presenters.ts';
import { RanVariants } from '../../ran-with-schema.ts';
import { formatAccuracy } from './eval.ts';

const Context = z.object({
  missing: z.array(z.number().int().nonnegative()),
  imageNote: z.string(),
  ran: RanVariants,
});

export const present: TablePresenter = (summary, items, context) => {
  const { missing, imageNote, ran } = Context.parse(context);
  return formatAccuracy(summary, items, new Set(missing), imageNote, ran);
};
