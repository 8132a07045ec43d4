/** `society openagi tasks FILE`: what a task_description.txt holds, by category. */
import { metricKindFor } from '../../../experts/benchmark.ts';
import { byCategory, OPENAGI_CATEGORIES } from '../../../experts/openagi.ts';
import { readTasks } from './task-file.ts';

export function tasksCommand(file: string, flags: { json?: boolean }): void {
  const { tasks, problems } = readTasks(file);
  const groups = byCategory(tasks);
  const counts = Object.fromEntries(OPENAGI_CATEGORIES.map((c) => [c, groups.get(c)!.length]));
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ file, total: tasks.length, categories: counts, problems, tasks })}\n`,
    );
    return;
  }
  const lines = [
    `${file}: ${tasks.length} tasks${problems.length > 0 ? `, ${problems.length} unreadable lines` : ''}`,
    ...OPENAGI_CATEGORIES.map(
      (c) =>
        `  ${c.padEnd(18)} ${String(counts[c]).padStart(4)}  scored by ${metricKindFor({ category: c })}`,
    ),
    ...problems.map((p) => `unreadable: ${p}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
