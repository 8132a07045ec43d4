/**
 * OpenAGI's benchmark data as its code reads it (agiresearch/OpenAGI @ 22190c5,
 * research/benchmark_tasks/general_dataset.py): one folder per task id, `<id>/inputs/` and
 * `<id>/outputs/`; in each, a `.txt` file is one text per line (one sample per line), and a
 * folder is pictures named `0.jpg`, `1.jpg`, … in sample order. The published data has 100
 * samples per task. A task's inputs are matched to the folder's entries by modality (pictures to
 * a folder, texts to a `.txt`); two texts (a document and a query) by their file names
 * ("question"/"query" is the query), else in name order.
 *
 * Everything is checked before any run: the first problem is one line naming the file and what
 * is wrong with it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAgiTask } from './openagi.ts';

/** A picture of the data: its bytes and media type. */
export interface DataPicture {
  bytes: Uint8Array;
  mime: string;
}
export type DataValue = string | DataPicture;

/** One sample of a task: its inputs by the task's input names, and the ground truth. */
export interface OpenAgiSample {
  inputs: Record<string, DataValue>;
  reference: DataValue;
}

/** A task's samples, in order. */
export interface OpenAgiTaskData {
  task: OpenAgiTask;
  samples: OpenAgiSample[];
}

/**
 * The test tasks of OpenAGI's published zero-shot evaluation (`test_task_idx` in
 * benchmark_tasks/zero_shot/zero_shot_schema-gpt.ipynb, agiresearch/OpenAGI @ a446a8b): 0-based
 * lines of task_description.txt. The list gives task 70 twice; it is run once here.
 */
export const OPENAGI_PAPER_SPLIT = {
  ids: [2, 3, 10, 15, 20, 35, 45, 55, 65, 70, 90, 106, 107],
  source:
    "OpenAGI's zero-shot evaluation list (test_task_idx, benchmark_tasks/zero_shot/zero_shot_schema-gpt.ipynb @ a446a8b)",
} as const;

/** A folder that does not have OpenAGI's layout: the message names the file and the field. */
export class OpenAgiDataError extends Error {}

/** One entry of `inputs/` or `outputs/`: a text file or a picture folder, with its samples. */
interface Entry {
  name: string;
  path: string;
  modality: 'text' | 'image';
  count: number;
  read(index: number): DataValue;
}

const JPEG = (b: Uint8Array) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

function entriesOf(folder: string, shown: string): Entry[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new OpenAgiDataError(
      `${shown}: missing (OpenAGI's layout: <task id>/inputs/ and <task id>/outputs/)`,
    );
  const entries: Entry[] = [];
  for (const name of readdirSync(folder).sort()) {
    if (name.startsWith('.')) continue;
    const path = join(folder, name);
    const where = `${shown}/${name}`;
    if (statSync(path).isDirectory()) {
      const files = readdirSync(path).filter((f) => !f.startsWith('.'));
      for (const [i] of files.entries()) {
        if (!existsSync(join(path, `${i}.jpg`)))
          throw new OpenAgiDataError(
            `${where}/${i}.jpg: missing (a picture folder holds ${files.length} file${files.length === 1 ? '' : 's'}, named 0.jpg to ${files.length - 1}.jpg)`,
          );
      }
      if (files.length === 0) throw new OpenAgiDataError(`${where}: no pictures (0.jpg, 1.jpg, …)`);
      entries.push({
        name,
        path,
        modality: 'image',
        count: files.length,
        read: (i) => {
          const bytes = new Uint8Array(readFileSync(join(path, `${i}.jpg`)));
          if (!JPEG(bytes)) throw new OpenAgiDataError(`${where}/${i}.jpg: not a JPEG picture`);
          return { bytes, mime: 'image/jpeg' };
        },
      });
    } else if (name.endsWith('.txt')) {
      const lines = readFileSync(path, 'utf8').split(/\r?\n/);
      if (lines.at(-1) === '') lines.pop();
      const blank = lines.findIndex((l) => l.trim() === '');
      if (blank >= 0)
        throw new OpenAgiDataError(
          `${where}: line ${blank + 1} is empty (one sample per line, none blank)`,
        );
      if (lines.length === 0)
        throw new OpenAgiDataError(`${where}: no lines (one sample per line)`);
      entries.push({
        name,
        path,
        modality: 'text',
        count: lines.length,
        read: (i) => lines[i]!,
      });
    } else {
      throw new OpenAgiDataError(
        `${where}: neither a .txt file (one sample per line) nor a folder of pictures`,
      );
    }
  }
  return entries;
}

/** Which entry feeds which input: pictures by order, texts by name ("question"/"query" last). */
function matchInputs(task: OpenAgiTask, entries: Entry[], shown: string): Entry[] {
  const describe = (es: readonly { modality: string }[]) =>
    es.map((e) => (e.modality === 'image' ? 'a picture folder' : 'a .txt file')).join(' and ');
  const wanted = task.inputs.map((i) => (i.modality === 'image' ? 'image' : 'text'));
  const have = (m: string) => entries.filter((e) => e.modality === m).length;
  const need = (m: string) => wanted.filter((w) => w === m).length;
  if (have('image') !== need('image') || have('text') !== need('text'))
    throw new OpenAgiDataError(
      `${shown}: holds ${describe(entries) || 'nothing'}, but task ${task.id} (${task.category}) takes ${describe(wanted.map((modality) => ({ modality })))}`,
    );
  const texts = entries
    .filter((e) => e.modality === 'text')
    .sort(
      (a, b) => Number(/question|query/i.test(a.name)) - Number(/question|query/i.test(b.name)),
    );
  const images = entries.filter((e) => e.modality === 'image');
  // The task's inputs list the document before the query (openagi.ts), as `texts` is sorted.
  return wanted.map((m) => (m === 'image' ? images.shift()! : texts.shift()!));
}

/**
 * Reads the folders of `tasks` under `dir`; `limit` keeps each task's first samples. Throws an
 * OpenAgiDataError naming the first file that does not fit.
 */
export function readOpenAgiData(
  dir: string,
  tasks: readonly OpenAgiTask[],
  options: { samples?: number } = {},
): OpenAgiTaskData[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new OpenAgiDataError(`${dir}: no such folder`);
  const out: OpenAgiTaskData[] = [];
  for (const task of tasks) {
    const root = join(dir, String(task.id));
    const shown = root;
    if (!existsSync(root))
      throw new OpenAgiDataError(
        `${shown}: missing (task ${task.id} is in the split; --split folder runs the task folders present)`,
      );
    const inputs = matchInputs(
      task,
      entriesOf(join(root, 'inputs'), `${shown}/inputs`),
      `${shown}/inputs`,
    );
    const outputs = entriesOf(join(root, 'outputs'), `${shown}/outputs`);
    const wanted = task.output === 'image' ? 'image' : 'text';
    if (outputs.length !== 1 || outputs[0]!.modality !== wanted)
      throw new OpenAgiDataError(
        `${shown}/outputs: holds ${outputs.length} entr${outputs.length === 1 ? 'y' : 'ies'}, but task ${task.id} (${task.category}) wants one ${wanted === 'image' ? 'picture folder' : '.txt file'}`,
      );
    const reference = outputs[0]!;
    const count = inputs[0]!.count;
    for (const e of [...inputs.slice(1), reference]) {
      if (e.count !== count)
        throw new OpenAgiDataError(
          `${e.path}: ${e.count} sample${e.count === 1 ? '' : 's'}, but ${inputs[0]!.path} has ${count}`,
        );
    }
    const n = Math.min(count, options.samples ?? count);
    const samples: OpenAgiSample[] = [];
    for (let i = 0; i < n; i++) {
      samples.push({
        inputs: Object.fromEntries(task.inputs.map((input, k) => [input.name, inputs[k]!.read(i)])),
        reference: reference.read(i),
      });
    }
    out.push({ task, samples });
  }
  return out;
}
