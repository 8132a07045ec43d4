/** Reading and compiling the society document a command names. */
import { readFileSync } from 'node:fs';
import { type CompileResult, compileGraph } from '../compiler/index.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import { formatProblem } from '../schema/problems.ts';
import { EXIT, Exit, UsageError } from './errors.ts';
import { readSets, setProblemLine } from './params.ts';

/**
 * Compiles the document in `file`; `patch` may change the parsed JSON first (`--model`), `sets`
 * are the `--set` assignments for its parameters. An unreadable file, an unknown parameter or a
 * value it does not take ends the command (exit 2, one line); a document that is not JSON is
 * left to the compiler, which reports it with the document's path.
 */
export async function compileFile(
  file: string,
  patch?: (doc: Record<string, unknown>) => void,
  sets: readonly string[] = [],
): Promise<CompileResult> {
  const params = readSets(sets);
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
  const compiled = await compileGraph(input, await loadNodeRegistry(), { params });
  if (!compiled.ok) {
    const line = compiled.problems.map((p) => setProblemLine(p, params)).find(Boolean);
    if (line) throw new UsageError(line);
  }
  return compiled;
}

/** Ends the command with exit 2 and one line per problem, each led by `file`. */
export function problemsExit(
  file: string,
  problems: Array<Parameters<typeof formatProblem>[0]>,
): Exit {
  return new Exit(EXIT.invalid, problems.map((p) => `${file}: ${formatProblem(p)}`).join('\n'));
}
