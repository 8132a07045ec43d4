/**
 * Every paper table layout the commands store with their evals (`config.table.kind`), and where
 * its presenter is. `society eval-show`, `eval-export` and the studio's Evals view all print a
 * stored layout through app/eval/table-presenters.ts, so both the CLI (commands/index.ts) and the
 * studio's API (main/api/evals.ts) call `registerTableLayouts`. The presenters and the tables
 * they format live here, below the CLI: the table commands print with them too, and the studio
 * loads no command. A presenter's code loads only when an eval needs it, so `society --help`
 * stays free of table code.
 */
import { registerTablePresenter, type TablePresenter } from '../eval/table-presenters.ts';

/** Each layout's kind and how to load its presenter; a new table command adds its line here. */
export const TABLE_LAYOUTS: Readonly<Record<string, () => Promise<TablePresenter>>> = {
  'openagi-table1': async () => (await import('./openagi/table-presenter.ts')).present,
  'cuisineworld-sweep': async () => (await import('./cuisineworld/table-presenter.ts')).present,
  'nlsom-vqa': async () => (await import('./nlsom/table-presenter.ts')).present,
  'nlsom-ego': async () => (await import('./nlsom/ego-presenter.ts')).present,
  'nlsom-3d': async () => (await import('./nlsom/threed-presenter.ts')).present,
  'nlsom-caption': async () => (await import('./nlsom/caption-presenter.ts')).present,
  'itcma-table1': async () => (await import('./itcma/table-presenter.ts')).present,
};

let registered = false;

/** Declares every layout's presenter (once; later calls do nothing). */
export function registerTableLayouts(): void {
  if (registered) return;
  registered = true;
  for (const [kind, load] of Object.entries(TABLE_LAYOUTS)) registerTablePresenter(kind, load);
}
