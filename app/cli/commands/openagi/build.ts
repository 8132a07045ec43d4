/**
 * `society openagi build FILE --out DIR`: one runnable, scored graph per task (inputs, a
 * reference, a planner, its answer and a metric).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileGraph } from '../../../compiler/index.ts';
import {
  metricKindFor,
  type PlannerModel,
  parsePlannerModel,
  selectTasks,
  taskFileName,
  taskGraph,
} from '../../../experts/benchmark.ts';
import { byCategory, OPENAGI_CATEGORIES, type OpenAgiTask } from '../../../experts/openagi.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { formatProblem } from '../../../schema/problems.ts';
import { UsageError } from '../../errors.ts';
import { replaceFile } from '../../replace-file.ts';
import { readTasks } from './task-file.ts';

/** `0,5,7` as ids; anything else is a usage error. */
export function parseIds(text: string): number[] {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0 || !ids.every((s) => /^\d+$/.test(s))) {
    throw new UsageError(`--ids expects task ids separated by commas (e.g. 0,5,7), got "${text}"`);
  }
  return [...new Set(ids.map(Number))];
}

/** One line on a terminal, redrawn; nothing elsewhere (the summary says what was done). */
function progressLine(): { update(text: string): void; done(): void } {
  const live = process.stderr.isTTY === true;
  let shown = false;
  return {
    update(text) {
      if (!live) return;
      process.stderr.write(`\r\x1b[2K${text}`);
      shown = true;
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[2K');
    },
  };
}

export interface BuildFlags {
  out: string;
  model?: string;
  category?: string;
  ids?: string;
}

export async function buildCommand(file: string, flags: BuildFlags): Promise<void> {
  let model: PlannerModel | undefined;
  if (flags.model !== undefined) {
    try {
      model = parsePlannerModel(flags.model);
    } catch (error) {
      throw new UsageError(`--model: ${(error as Error).message}`);
    }
  }
  const ids = flags.ids === undefined ? undefined : parseIds(flags.ids);
  const { tasks, problems } = readTasks(file);
  let selected: OpenAgiTask[];
  try {
    selected = selectTasks(tasks, {
      ...(flags.category !== undefined ? { category: flags.category } : {}),
      ...(ids ? { ids } : {}),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (selected.length === 0) throw new UsageError('no task matches --category and --ids');
  try {
    mkdirSync(flags.out, { recursive: true });
  } catch (error) {
    throw new UsageError(`cannot create ${flags.out}: ${(error as Error).message}`);
  }

  // Every graph is compiled before it is written, so a written graph is a valid one.
  const registry = await loadNodeRegistry();
  const progress = progressLine();
  const written: OpenAgiTask[] = [];
  for (const [n, task] of selected.entries()) {
    progress.update(`building ${n + 1}/${selected.length}: task ${task.id}`);
    const doc = taskGraph(task, model ? { model } : {});
    const compiled = await compileGraph(doc, registry);
    if (!compiled.ok) {
      progress.done();
      throw new Error(
        `task ${task.id} made an invalid graph:\n${compiled.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
      );
    }
    const target = join(flags.out, taskFileName(task));
    try {
      // A symlink already in the --out folder is replaced, never followed.
      replaceFile(target, Buffer.from(`${JSON.stringify(doc, null, 2)}\n`));
    } catch (error) {
      progress.done();
      throw new UsageError(`cannot write ${target}: ${(error as Error).message}`);
    }
    written.push(task);
  }
  progress.done();
  const groups = byCategory(written);
  const planner = model
    ? `planner model ${model.profile} (${model.provider}:${model.model})`
    : 'rule planner (no --model)';
  const lines = [
    `${flags.out}: ${written.length} graphs, ${planner}`,
    ...OPENAGI_CATEGORIES.filter((c) => groups.get(c)!.length > 0).map(
      (c) =>
        `  ${c.padEnd(18)} ${String(groups.get(c)!.length).padStart(4)}  scored by ${metricKindFor({ category: c })}`,
    ),
    ...problems.map((p) => `skipped, unreadable: ${p}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
