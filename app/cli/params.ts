/**
 * `--set NAME=VALUE`: template parameters for one command (run, inspect, validate), and how a
 * command shows the parameters a document declares.
 */
import type { CompiledGraph } from '../compiler/index.ts';
import { formatValue, type ParamValue } from '../schema/params.ts';
import type { Problem } from '../schema/problems.ts';
import { splitAssignment } from './assignment.ts';
import { UsageError } from './errors.ts';

/** The `--set` assignments by name, as text (the document's types read them). */
export function readSets(assignments: readonly string[]): Record<string, string> {
  const sets: Record<string, string> = {};
  for (const assignment of assignments) {
    const [name, value] = splitAssignment(assignment, '--set');
    if (Object.hasOwn(sets, name)) throw new UsageError(`--set ${name} is given twice`);
    sets[name] = value;
  }
  return sets;
}

/**
 * A compile problem about a value `--set` gave (`params.NAME`), as the one line the command
 * ends with: `--set rounds=abc: rounds is a whole number from 1 to 10`; undefined for any other
 * problem (those are the document's, printed with its path).
 */
export function setProblemLine(problem: Problem, sets: Record<string, string>): string | undefined {
  const name = /^params\.(.+)$/.exec(problem.path)?.[1];
  if (name === undefined || !Object.hasOwn(sets, name)) return undefined;
  return `--set ${name}=${sets[name]}: ${problem.message}`;
}

/** The parameter values for `--json` output: present only when the document declares any. */
export function paramsField(compiled: Pick<CompiledGraph, 'params'>): {
  params?: Record<string, ParamValue>;
} {
  return Object.keys(compiled.params).length ? { params: compiled.params } : {};
}

/** "parameters: rounds=3, structure=monarchy": the values a run or an estimate uses. */
export function formatParamValues(values: Readonly<Record<string, ParamValue>>): string {
  const shown = Object.entries(values).map(([name, value]) => `${name}=${formatValue(value)}`);
  return `parameters: ${shown.join(', ')}`;
}
