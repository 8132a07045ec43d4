/** `society world check FILE`: exit 0 with a one-line summary, 2 with one line per problem. */
import { formatProblem } from '../../../schema/problems.ts';
import { problemsExit } from '../../document-file.ts';
import { loadWorldFile } from './world-file.ts';

export function checkWorldCommand(file: string): void {
  const loaded = loadWorldFile(file);
  if (!loaded.ok) throw problemsExit(file, loaded.problems);
  const { spec } = loaded;
  const furniture = spec.areas.reduce((n, a) => n + a.furniture.length, 0);
  const script = spec.script?.length ?? 0;
  const counts = [
    count(spec.areas.length, 'area', 'areas'),
    `${furniture} furniture`,
    count(spec.items.length, 'item', 'items'),
    count(spec.agents.length, 'agent', 'agents'),
    count(script, 'script entry', 'script entries'),
  ];
  process.stdout.write(`${file}: valid world "${spec.name}" (${counts.join(', ')})\n`);
  for (const w of loaded.warnings) process.stderr.write(`${file}: warning: ${formatProblem(w)}\n`);
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
