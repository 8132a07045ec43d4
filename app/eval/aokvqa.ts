/**
 * A-OKVQA's own annotation file (`aokvqa_v1p0_val.json`, as its authors publish it): one JSON
 * list of questions, each `{ question_id, image_id, question, choices, correct_choice_idx,
 * direct_answers, … }`. The photos are COCO's, named by `image_id` (`val2017/000000XXXXXX.jpg`);
 * a row's `image` is that path, so a COCO folder given with `--images` finds it either under
 * `val2017/` or directly. A malformed entry is refused naming the entry and the field, since an
 * eval over a half-read file would report an accuracy over questions it never asked.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { z } from 'zod';
import { type Dataset, DatasetError, letteredOptions, questionWithOptions } from './dataset.ts';

const entrySchema = z.looseObject({
  question_id: z.union([z.string().min(1), z.number()]),
  image_id: z.number().int().nonnegative(),
  question: z.string().min(1),
  choices: z.array(z.string()).min(2).max(26),
  correct_choice_idx: z.number().int().nonnegative(),
  direct_answers: z.array(z.string()).optional(),
});

/** COCO's file name for an image id in a split: `val2017/000000000123.jpg`. */
export function cocoImagePath(imageId: number, split = 'val2017'): string {
  return `${split}/${String(imageId).padStart(12, '0')}.jpg`;
}

/** Whether `path` is a JSON file holding one list (A-OKVQA's layout) rather than JSON Lines. */
export function isAokvqaJson(path: string): boolean {
  if (extname(path).toLowerCase() !== '.json') return false;
  try {
    const head = readFileSync(path, { encoding: 'utf8', flag: 'r' }).slice(0, 4096);
    return head
      .replace(/^\uFEFF/, '')
      .trimStart()
      .startsWith('[');
  } catch {
    return false;
  }
}

/**
 * Reads A-OKVQA's JSON into rows shaped as the `_!_` reader's: `question` with its lettered
 * options, `stem`, `choices`, `answer` (index), `answerLetter`, `answerText`, `image` (COCO's
 * path), plus `question_id`, `image_id` and `direct_answers`.
 */
export function readAokvqa(path: string, split = 'val2017'): Dataset {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DatasetError(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let list: unknown;
  try {
    list = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new DatasetError(`${path}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(list)) throw new DatasetError(`${path}: A-OKVQA's file is one JSON list`);
  if (list.length === 0) throw new DatasetError(`${path}: no questions`);
  const rows = list.map((raw, index) => {
    const parsed = entrySchema.safeParse(raw);
    const named =
      raw && typeof raw === 'object' && 'question_id' in raw
        ? ` (question_id ${JSON.stringify((raw as { question_id: unknown }).question_id)})`
        : '';
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length ? issue.path.join('.') : 'the entry';
      throw new DatasetError(
        `${path}: entry ${index + 1}${named}: ${field}: ${issue.message.toLowerCase()}`,
      );
    }
    const e = parsed.data;
    if (e.correct_choice_idx >= e.choices.length)
      throw new DatasetError(
        `${path}: entry ${index + 1}${named}: correct_choice_idx: ${e.correct_choice_idx} is not an index into ${e.choices.length} choices`,
      );
    return {
      image: cocoImagePath(e.image_id, split),
      question: questionWithOptions(e.question, e.choices),
      stem: e.question.trim(),
      options: letteredOptions(e.choices),
      choices: e.choices,
      answer: e.correct_choice_idx,
      answerLetter: String.fromCharCode(65 + e.correct_choice_idx),
      answerText: e.choices[e.correct_choice_idx],
      question_id: e.question_id,
      image_id: e.image_id,
      ...(e.direct_answers ? { direct_answers: e.direct_answers } : {}),
    };
  });
  const hash = createHash('sha256').update(bytes).digest('hex');
  return { path, dir: dirname(resolve(path)), hash, format: 'mc-text', rows };
}
