/** `society eval-export ID DIR`: writes the eval's bundle (app/eval/bundle/export.ts) into DIR. */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildBundle } from '../../../eval/bundle/export.ts';
import { UsageError } from '../../errors.ts';
import { processRedactor } from '../../redaction.ts';
import { openStore } from '../../run-store.ts';
import { terminalText } from '../../terminal-text.ts';
import { evalTable, findEval } from '../eval/show.ts';

/** Refuses a DIR that is a file or a folder with files in it: a bundle is never mixed with others. */
function checkTarget(dir: string): void {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) throw new UsageError(`${dir} is a file; eval-export writes a folder`);
  if (readdirSync(dir).length > 0)
    throw new UsageError(`${dir} is not empty; give a new or empty folder`);
}

export async function evalExportCommand(id: string, dir: string, flags: { db?: string }) {
  checkTarget(dir);
  const store = openStore(flags.db);
  try {
    const record = findEval(store, id);
    const table = await evalTable(store, record);
    const files = await buildBundle({
      store,
      record,
      items: table.items,
      ratings: store.evalRatings(record.id),
      summary: table.summary,
      tableText: terminalText(table.text),
      ...(table.paper !== undefined ? { paperText: terminalText(table.paper) } : {}),
      redact: (text) => processRedactor.text(text),
    });
    try {
      for (const [path, bytes] of files) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), bytes);
      }
    } catch (error) {
      throw new UsageError(`cannot write ${dir}: ${(error as Error).message.split('\n')[0]}`);
    }
    const runs = [...files.keys()].filter((p) => p.startsWith('runs/')).length;
    process.stdout.write(
      `${dir}: eval ${record.id}, ${table.items.length} item records, ${runs} run${runs === 1 ? '' : 's'}, ${files.size} files (manifest.json holds their sha256)\n`,
    );
  } finally {
    store.close();
  }
}
