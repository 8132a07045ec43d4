/** `society eval-import DIR [--rescore SCORER]`: opens an eval bundle in this store. */
import {
  BundleError,
  importBundle,
  openBundle,
  RESCORERS,
  rescoreEval,
} from '../../../eval/bundle/import.ts';
import { EXIT, UsageError } from '../../errors.ts';
import { openStore } from '../../run-store.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function evalImportCommand(
  dir: string,
  flags: { db?: string; rescore?: string },
): Promise<number> {
  if (flags.rescore !== undefined && !RESCORERS.includes(flags.rescore))
    throw new UsageError(
      `--rescore ${flags.rescore}: re-scoring calls no model, so it takes a text scorer: ${RESCORERS.join(', ')}`,
    );
  let bundle: ReturnType<typeof openBundle>;
  try {
    bundle = openBundle(dir);
  } catch (error) {
    if (error instanceof BundleError) throw new UsageError(error.message);
    throw error;
  }
  const store = openStore(flags.db);
  try {
    const result = importBundle(store, bundle);
    process.stdout.write(
      `eval ${result.evalId}: ${result.created ? `imported, ${plural(bundle.items.length, 'item record')}` : `already in ${store.path}, left as it is`}; runs: ${result.runs.imported} imported, ${result.runs.present} already here (society eval-show ${result.evalId})\n`,
    );
    if (flags.rescore !== undefined) {
      const id = await rescoreEval(store, result.evalId, flags.rescore);
      process.stdout.write(
        `eval ${id}: the predictions re-scored with ${flags.rescore}, no model called (society eval-show ${id})\n`,
      );
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof BundleError) throw new UsageError(error.message);
    throw error;
  } finally {
    store.close();
  }
}
