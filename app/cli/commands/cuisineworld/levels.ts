/** `society cuisineworld levels`: the levels, their kitchen and dishes, and what is wrong with any. */
import { environmentKind } from '../../../environments/registry.ts';

export function levelsCommand(flags: { json?: boolean }): Promise<void> {
  return environmentKind('cuisineworld').then((kitchen) => {
    const rows = kitchen.levels().map((level) => ({
      level,
      description: kitchen.describeLevel(level),
      problems: kitchen.checkLevel(level),
    }));
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return;
    }
    for (const row of rows) {
      process.stdout.write(
        `${row.level}: ${row.description}${row.problems.length > 0 ? `\n  ! ${row.problems.join('\n  ! ')}` : ''}\n`,
      );
    }
  });
}
