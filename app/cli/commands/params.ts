/** `society params FILE`: the template parameters a document declares, and what each takes. */
import { readFileSync } from 'node:fs';
import { accepts, formatValue } from '../../schema/params.ts';
import { parseDocument } from '../../schema/parse.ts';
import { problemsExit } from '../document-file.ts';
import { UsageError } from '../errors.ts';

/** Prints one line per parameter (name, type, default, what it takes, description) or JSON. */
export async function paramsCommand(file: string, flags: { json?: boolean }): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  // The parameters are the document's own: reading them needs no node types.
  const parsed = parseDocument(text);
  if (!parsed.ok) throw problemsExit(file, parsed.problems);
  const params = parsed.doc.params ?? {};
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(params)}\n`);
    return;
  }
  const names = Object.keys(params);
  if (names.length === 0) {
    process.stdout.write(`${file} declares no parameters\n`);
    return;
  }
  for (const name of names) {
    const param = params[name]!;
    const about = param.description ? ` — ${param.description}` : '';
    process.stdout.write(
      `${name} (${param.type}, default ${formatValue(param.default)}): ${accepts(param)}${about}\n`,
    );
  }
  process.stdout.write(`set one with: society run ${file} --set ${names[0]}=VALUE\n`);
}
