/** `society validate FILES…`: checks documents; exit 0 when all are valid, 2 with one line per problem. */
import { formatProblem } from '../../schema/problems.ts';
import { compileFile } from '../document-file.ts';
import { EXIT, Exit } from '../errors.ts';

export async function validateCommand(
  files: string[],
  flags: { set?: string[] } = {},
): Promise<void> {
  let invalid = false;
  for (const file of files) {
    const result = await compileFile(file, undefined, flags.set);
    if (result.ok) {
      process.stdout.write(
        `${file}: valid (${result.plan.nodes.size} nodes, ${result.doc.edges.length} edges)\n`,
      );
    } else {
      invalid = true;
      for (const p of result.problems) process.stdout.write(`${file}: ${formatProblem(p)}\n`);
    }
  }
  if (invalid) throw new Exit(EXIT.invalid);
}
