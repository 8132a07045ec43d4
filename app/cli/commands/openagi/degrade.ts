/**
 * `society openagi degrade IMAGE --steps … --out FILE.png`: a degraded benchmark input, made
 * offline and the same for the same seed.
 */
import { writeFileSync } from 'node:fs';
import type { OpenAgiTask } from '../../../experts/openagi.ts';
import { type Degradation, degradeImage, parseDegradations } from '../../../imageops/degrade.ts';
import { UsageError } from '../../errors.ts';
import { readInput, readTasks } from './task-file.ts';

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

export interface DegradeFlags {
  steps?: string;
  fromTask?: string;
  tasks?: string;
  seed: string;
  out?: string;
}

export async function degradeCommand(image: string, flags: DegradeFlags): Promise<void> {
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
