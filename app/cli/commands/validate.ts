/**
 * `society validate FILES…`: checks documents; exit 0 when all are valid, 2 with one line per
 * problem. A valid document whose budget its likely run exceeds gets a warning line (exit 0), as
 * does one holding a key-shaped string (naming its JSON path, never the value).
 */
import { DEFAULT_PRICES } from '../../costs/prices.ts';
import { formatProblem } from '../../schema/problems.ts';
import { budgetWarnings } from '../budget-warnings.ts';
import { compileFile } from '../document-file.ts';
import { EXIT, Exit } from '../errors.ts';
import { KEY_ADVICE, keyShapedIn } from '../key-shaped.ts';

export async function validateCommand(
  files: string[],
  flags: { set?: string[] } = {},
): Promise<void> {
  let invalid = false;
  for (const file of files) {
    const result = await compileFile(file, undefined, flags.set);
    if (result.ok) {
      // Nodes wired into a tools port leave the flow: each is a library graph of the plan's own.
      const offered =
        Object.keys(result.plan.toolDoc?.graphs ?? {}).length -
        Object.keys(result.doc.graphs ?? {}).length;
      const tools =
        offered > 0 ? `, ${offered} offered as ${offered === 1 ? 'a tool' : 'tools'}` : '';
      process.stdout.write(
        `${file}: valid (${result.plan.nodes.size} nodes, ${result.plan.doc.edges.length} edges${tools})\n`,
      );
      // A warning leaves the exit code alone: the document is valid, its budget may be short.
      // Inputs count as empty here (their values are a run's): calls do not depend on them.
      for (const line of budgetWarnings(result.plan, DEFAULT_PRICES, {}))
        process.stdout.write(`${file}: ${line}\n`);
      // Valid, but not to be shared: society export and the editor's Export would refuse it.
      const holding = keyShapedIn(result.doc);
      if (holding)
        process.stdout.write(
          `${file}: warning: ${holding} holds what looks like a key; society export, the editor's Export and a queued eval refuse this document. ${KEY_ADVICE}\n`,
        );
    } else {
      invalid = true;
      for (const p of result.problems) process.stdout.write(`${file}: ${formatProblem(p)}\n`);
    }
  }
  if (invalid) throw new Exit(EXIT.invalid);
}
