/** Reading and compiling the society document a command names. */
import { readFileSync } from 'node:fs';
import { type CompileResult, compileGraph } from '../compiler/index.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import { formatProblem } from '../schema/problems.ts';
import { EXIT, Exit, UsageError } from './errors.ts';

/**
 * Compiles the document in `file`; `patch` may change the parsed JSON first (`--model`). An
 * unreadable file ends the command (exit 2); a document that is not JSON is left to the compiler,
 * which reports it with the document's path.
 */
export async function compileFile(
  file: string,
  patch?: (doc: Record<string, unknown>) => void,
): Promise<CompileResult> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Exit(
      EXIT.invalid,
      `society: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let input: unknown = text;
  if (patch) {
    try {
      const doc = JSON.parse(text);
      if (doc && typeof doc === 'object') {
        patch(doc);
        input = doc;
      }
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // Not JSON: compileGraph reports it with the document's path.
    }
  }
  return compileGraph(input, await loadNodeRegistry());
}

/** Ends the command with exit 2 and one line per problem, each led by `file`. */
export function problemsExit(
  file: string,
  problems: Array<Parameters<typeof formatProblem>[0]>,
): Exit {
  return new Exit(EXIT.invalid, problems.map((p) => `${file}: ${formatProblem(p)}`).join('\n'));
}
