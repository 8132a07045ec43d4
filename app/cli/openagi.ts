/**
 * `society openagi`: OpenAGI's benchmark tasks from the command line.
 * - `tasks FILE`: what a task_description.txt holds, by category;
 * - `build FILE --out DIR`: one runnable, scored graph per task;
 * - `degrade IMAGE --steps … --out FILE.png`: a degraded benchmark input, made offline.
 * Bad arguments and unreadable files are usage errors (exit 2), one line each.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { compileGraph } from '../compiler/index.ts';
import {
  metricKindFor,
  type PlannerModel,
  parsePlannerModel,
  selectTasks,
  taskFileName,
  taskGraph,
} from '../experts/benchmark.ts';
import {
  byCategory,
  OPENAGI_CATEGORIES,
  type OpenAgiTask,
  parseTaskFile,
} from '../experts/openagi.ts';
import { type Degradation, degradeImage, parseDegradations } from '../imageops/degrade.ts';
import { loadNodeRegistry } from '../nodes/registry.ts';
import { formatProblem } from '../schema/problems.ts';
import { UsageError } from './inputs.ts';

/** Reads a file or says, in one line, why it cannot. */
function readInput(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (code ?? (error as Error).message);
    throw new UsageError(`cannot read ${what} ${path} (${why})`);
  }
}

/** The tasks of a task file; a file with none is a usage error. */
function readTasks(path: string): { tasks: OpenAgiTask[]; problems: string[] } {
  const parsed = parseTaskFile(readInput(path, 'the task file').toString('utf8'));
  if (parsed.tasks.length === 0) {
    const first = parsed.problems[0] ? `; first problem: ${parsed.problems[0]}` : '';
    throw new UsageError(`${path}: no OpenAGI task could be read${first}`);
  }
  return parsed;
}

function tasksCommand(file: string, flags: { json?: boolean }): void {
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

/** `0,5,7` as ids; anything else is a usage error. */
function parseIds(text: string): number[] {
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

interface BuildFlags {
  out: string;
  model?: string;
  category?: string;
  ids?: string;
}

async function buildCommand(file: string, flags: BuildFlags): Promise<void> {
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
      writeFileSync(target, `${JSON.stringify(doc, null, 2)}\n`);
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

const STEP_KINDS = ['low-resolution', 'noise', 'blur', 'grayscale'] as const;

/**
 * `--steps` as degradations: step kinds or task-description words ("noisy", "blurry"), each
 * optionally with a number: `low-resolution=2` (the factor), `noise=30` and `blur=1.5` (sigmas).
 */
export function parseSteps(text: string): Degradation[] {
  const steps: Degradation[] = [];
  for (const part of text.split(',').map((s) => s.trim())) {
    if (part === '') continue;
    const [word = '', value] = part.split('=').map((s) => s.trim());
    const kind = (STEP_KINDS as readonly string[]).includes(word.toLowerCase())
      ? (word.toLowerCase() as Degradation['kind'])
      : parseDegradations([word]).steps[0]?.kind;
    if (!kind) {
      throw new UsageError(
        `--steps: unknown degradation "${word}"; use ${STEP_KINDS.join(', ')} (or words such as noisy, blurry)`,
      );
    }
    if (value === undefined) {
      steps.push({ kind } as Degradation);
      continue;
    }
    const number = Number(value);
    if (value === '' || !Number.isFinite(number) || number < 0) {
      throw new UsageError(`--steps: "${part}" needs a non-negative number after "="`);
    }
    if (kind === 'grayscale') throw new UsageError('--steps: grayscale takes no number');
    steps.push(kind === 'low-resolution' ? { kind, factor: number } : { kind, sigma: number });
  }
  if (steps.length === 0) throw new UsageError('--steps: no degradation given');
  return steps;
}

/** The image degradations a task's description names (its text ones, "clozed", are not). */
function stepsOfTask(
  tasksFile: string,
  idText: string,
): { steps: Degradation[]; task: OpenAgiTask } {
  if (!/^\d+$/.test(idText)) throw new UsageError(`--from-task expects a task id, got "${idText}"`);
  const id = Number(idText);
  const { tasks } = readTasks(tasksFile);
  const task = tasks.find((t) => t.id === id);
  if (!task) {
    throw new UsageError(
      `${tasksFile}: no task ${id} (ids run from 0 to ${Math.max(...tasks.map((t) => t.id))})`,
    );
  }
  if (!task.inputs.some((i) => i.modality === 'image')) {
    throw new UsageError(`task ${id} takes no image: "${task.description}"`);
  }
  const { steps } = parseDegradations(task.degradations.filter((w) => w !== 'clozed'));
  if (steps.length === 0) {
    throw new UsageError(`task ${id}'s image is not degraded: "${task.description}"`);
  }
  return { steps, task };
}

interface DegradeFlags {
  steps?: string;
  fromTask?: string;
  tasks?: string;
  seed: string;
  out?: string;
}

async function degradeCommand(image: string, flags: DegradeFlags): Promise<void> {
  if (!flags.out) throw new UsageError('degrade needs --out FILE.png');
  if (flags.steps !== undefined && flags.fromTask !== undefined) {
    throw new UsageError('give either --steps or --from-task, not both');
  }
  if (flags.fromTask !== undefined && !flags.tasks) {
    throw new UsageError('--from-task needs --tasks FILE (a task_description.txt)');
  }
  let steps: Degradation[];
  let source = '';
  if (flags.fromTask !== undefined) {
    const picked = stepsOfTask(flags.tasks!, flags.fromTask);
    steps = picked.steps;
    source = ` from task ${picked.task.id}`;
  } else if (flags.steps !== undefined) {
    steps = parseSteps(flags.steps);
  } else {
    throw new UsageError(
      'degrade needs --steps (e.g. low-resolution,noise,blur,grayscale) or --from-task N',
    );
  }
  const bytes = readInput(image, 'the image');
  let result: Awaited<ReturnType<typeof degradeImage>>;
  try {
    result = await degradeImage(new Uint8Array(bytes), steps, { seed: flags.seed });
  } catch (error) {
    throw new UsageError(`cannot degrade ${image}: ${(error as Error).message}`);
  }
  try {
    writeFileSync(flags.out, result.bytes);
  } catch (error) {
    throw new UsageError(`cannot write ${flags.out}: ${(error as Error).message}`);
  }
  const named = steps.map((s) => s.kind).join(', ');
  process.stdout.write(
    `${flags.out}: ${result.width}×${result.height} PNG; ${named}${source}; seed ${flags.seed}\n`,
  );
}

/** Adds `society openagi` and its subcommands to the program. */
export function addOpenAgiCommands(program: Command): void {
  const openagi = program
    .command('openagi')
    .description("OpenAGI's benchmark: list its tasks, build scored graphs, degrade inputs");

  openagi
    .command('tasks')
    .description('read a task_description.txt and count its tasks by category')
    .argument('<file>', "OpenAGI's task_description.txt (one task per line)")
    .option('--json', 'print the counts, the unreadable lines and every task as JSON')
    .action((file: string, flags: { json?: boolean }) => tasksCommand(file, flags));

  openagi
    .command('build')
    .description(
      'write one graph per task: inputs, a reference, a planner, its answer and a metric',
    )
    .argument('<file>', "OpenAGI's task_description.txt")
    .requiredOption('--out <DIR>', 'where to write <id>-<slug>.society.json files')
    .option(
      '--model <PROFILE>',
      'the planner model, PROVIDER:MODEL or NAME=PROVIDER:MODEL (default: the rule planner)',
    )
    .option('--category <CAT>', `only one category: ${OPENAGI_CATEGORIES.join(', ')}`)
    .option('--ids <IDS>', 'only these task ids, e.g. 0,5,7')
    .action((file: string, flags: BuildFlags) => buildCommand(file, flags));

  openagi
    .command('degrade')
    .description('degrade an image as a benchmark input (offline, deterministic for a seed)')
    .argument('<image>', 'the clean image')
    .option(
      '--steps <LIST>',
      'degradations in order: low-resolution, noise, blur, grayscale (or noisy, blurry…); noise=30 sets a value',
    )
    .option('--from-task <N>', "take the steps from task N's description (needs --tasks)")
    .option('--tasks <FILE>', 'the task_description.txt for --from-task')
    .option('--seed <S>', 'the noise seed', '0')
    .option('--out <FILE.png>', 'where to write the PNG')
    .action((image: string, flags: DegradeFlags) => degradeCommand(image, flags));
}
