/**
 * NLSOM's Table 4 layout (A-OKVQA accuracy) printed again from a stored eval (`society
 * eval-show`, `eval-export`): the context `society nlsom eval` stores with it is which items had
 * no photo, the line saying so, the values each structure ran with and the paper's figures.
 */
import { z } from 'zod';
import type { TablePresenter } from '../../eval/table-presenters.ts';
import { RanVariants } from '../ran-with-schema.ts';
import { formatAccuracy } from './accuracy.ts';

const Context = z.object({
  missing: z.array(z.number().int().nonnegative()),
  imageNote: z.string(),
  ran: RanVariants,
  /** The paper's figure for each row, in the table's order; null where it has none. */
  paper: z.array(z.object({ value: z.number(), where: z.string() }).nullable()).default([]),
});

export const present: TablePresenter = (summary, items, context) => {
  const { missing, imageNote, ran, paper } = Context.parse(context);
  const figures = paper.map((figure) => ({ figure: figure ?? undefined }));
  return formatAccuracy(summary, items, new Set(missing), imageNote, ran, figures);
};
