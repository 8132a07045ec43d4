/** `society eval-export ID DIR`: writes the eval's bundle (app/eval/bundle/export.ts) into DIR. */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildBundle } from '../../../eval/bundle/export.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { UsageError } from '../../errors.ts';
import { KEY_ADVICE, keyShapedIn } from '../../key-shaped.ts';
import { processRedactor } from '../../redaction.ts';
import { openStore } from '../../run-store.ts';
import { evalTable, findEval } from '../eval/show.ts';

/** Refuses a DIR that is a file or a folder with files in it: a bundle is never mixed with others. */
function checkTarget(dir: string): void {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) throw new UsageError(`${dir} is a file; eval-export writes a folder`);
  if (readdirSync(dir).length > 0)
    throw new UsageError(`${dir} is not empty; give a new or empty folder`);
}

/**
 * Where in a bundle file a key-shaped string is (as `society export` checks a run): known keys are
 * already [redacted], this catches the ones no variable holds. Documents are read parsed, so the
 * path names the node and field; a run's file bytes are not text and are left out.
 */
function keyShapedFile(path: string, bytes: Buffer): string | undefined {
  if (!/\.jsonl?$/.test(path)) return undefined;
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  const values = path.endsWith('.jsonl')
    ? bytes.toString('utf8').split('\n').filter(Boolean).map(parse)
    : [parse(bytes.toString('utf8'))];
  for (const [index, value] of values.entries()) {
    let checked = value;
    if (path.startsWith('runs/') && value && typeof value === 'object') {
      const {
        blobs: _bytes,
        run,
        ...rest
      } = value as { blobs?: unknown; run?: { documentText?: string } };
      checked = { ...rest, run: { ...run, documentText: parse(run?.documentText ?? '') } };
    }
    const holding = keyShapedIn(checked);
    if (holding) return `${path}${values.length > 1 ? ` line ${index + 1}` : ''}: ${holding}`;
  }
  return undefined;
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
    for (const [path, bytes] of files) {
      const holding = keyShapedFile(path, bytes);
      if (holding)
        throw new UsageError(
          `not exported: ${holding} holds what looks like a key. ${KEY_ADVICE} and export again`,
        );
    }
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
