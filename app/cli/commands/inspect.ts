/** `society inspect FILE`: the compiled XState machine configs as JSON. */
import { compileFile, problemsExit } from '../document-file.ts';

export async function inspectCommand(file: string, flags: { set?: string[] } = {}): Promise<void> {
  const result = await compileFile(file, undefined, flags.set);
  if (!result.ok) throw problemsExit(file, result.problems);
  process.stdout.write(`${JSON.stringify(result.machines, null, 2)}\n`);
}
