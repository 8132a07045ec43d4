/**
 * ITCMA-S's Table 1 layout printed again from a stored eval (`society eval-show`, with the
 * ratings given since, and `eval-export`): the context `society itcma eval` stores with it is
 * the values each architecture ran with.
 */
import { z } from 'zod';
import type { TablePresenter } from '../../eval/table-presenters.ts';
import { RanVariants } from '../ran-with-schema.ts';
import { formatTable } from './table1.ts';

const Context = z.object({ ran: RanVariants });

export const present: TablePresenter = (summary, _items, context) =>
  formatTable(summary, Context.parse(context).ran);
