/**
 * One sample per OpenAGI task, for `society openagi eval`. OpenAGI scores each task over 100
 * augmented samples (ImageNet, COCO, CNN/Daily Mail, SST-2, TextVQA, SQuAD) that live on a
 * Google Drive under CC BY-NC and are not shipped here. Instead each task gets one sample
 * built the way OpenAGI builds its data (Ge et al., Sec. 3.1.2 and A.3): a clean picture or
 * text, degraded as the task's words say (low resolution, noise, blur, grayscale; a masked word
 * for "clozed"), and a reference answer for the task's goal. The references are ours, written
 * for the sample picture (a "22" on a grey field) and sentences taken from the paper's
 * Table A.4, so a score says how close a plan came on this one sample, not on OpenAGI's data.
 */
import { type Degradation, degradeImage, parseDegradations } from '../imageops/degrade.ts';
import { maskWord } from '../imageops/text.ts';
import type { OpenAgiTask } from './openagi.ts';

/**
 * Six tasks in OpenAGI's wording, one per category, for users without the benchmark's
 * task_description.txt: the lines of its tasks 0, 24, 105, 108, 121 and 177, in category
 * order (numbered 0 to 5 here).
 */
export const SAMPLE_TASK_LINES = [
  'Given low-resolutioned noisy blurry grayscale image, how to return the regular image step by step?',
  'Given noisy blurry grayscale image, how to return the caption in English step by step?',
  'Given clozed English text, how to generate a image step by step?',
  'Given clozed English text, how to translate the text in German step by step?',
  'Given noisy blurry grayscale image and clozed English query, how to answer the question in English step by step?',
  'Given clozed English document and clozed English query, how to answer the question in German step by step?',
] as const;

/** The sample's texts: from the paper's Table A.4 where it has one. */
const TEXT = {
  sentence: 'A big burly grizzly bear is shown in the grass in the background.',
  document:
    'Super Bowl 50 was an American football game to determine the champion of the National Football League for the 2015 season. As this was the 50th Super Bowl, the league emphasized the golden anniversary.',
  imageQuestion: 'What number is on the player jersey?',
  documentQuestion: 'What was the theme of Super Bowl 50?',
} as const;

/** Reference answers by goal and language, for the sample picture and texts. */
const ANSWERS: Record<string, { English: string; German: string }> = {
  caption: {
    English: 'the number 22 on a grey background',
    German: 'die Zahl 22 auf grauem Hintergrund',
  },
  'class label': { English: 'scoreboard', German: 'Anzeigetafel' },
  'object names': { English: 'number', German: 'Zahl' },
  sentiment: { English: 'neutral', German: 'neutral' },
  summarization: { English: 'A grizzly bear in the grass.', German: 'Ein Grizzlybär im Gras.' },
  translate: {
    English: TEXT.sentence,
    German: 'Ein kräftiger Grizzlybär ist im Hintergrund im Gras zu sehen.',
  },
  imageQuestion: { English: '22', German: '22' },
  documentQuestion: { English: 'golden anniversary', German: 'goldenes Jubiläum' },
};

/** A sample's values: per task input, and the reference. Pictures as PNG bytes. */
export interface TaskSample {
  inputs: Record<string, string | { png: Uint8Array }>;
  reference: string | { png: Uint8Array };
}

/** The reference answer for a text goal, or undefined when the goal is not one we know. */
function textAnswer(task: OpenAgiTask): string | undefined {
  const language = task.outputLanguage === 'German' ? 'German' : 'English';
  const goal = task.target.toLowerCase();
  if (goal.startsWith('answer the question'))
    return ANSWERS[
      task.inputs.some((i) => i.name === 'context') ? 'documentQuestion' : 'imageQuestion'
    ]![language];
  if (goal.startsWith('translate')) return ANSWERS.translate!.German;
  for (const key of ['caption', 'class label', 'object names', 'sentiment', 'summarization'])
    if (goal.includes(key)) return ANSWERS[key]![language];
  return undefined;
}

/**
 * The sample of `task`, from the clean `picture` (PNG or JPEG bytes): images degraded with the
 * task's image words, texts with a masked word when the task says "clozed", each with a seed
 * from the task id so the same task always gets the same sample.
 */
export async function taskSample(task: OpenAgiTask, picture: Uint8Array): Promise<TaskSample> {
  const seed = `openagi-sample:${task.id}`;
  const { steps } = parseDegradations(task.degradations.filter((w) => w !== 'clozed'));
  const clozed = task.degradations.includes('clozed');
  const inputs: TaskSample['inputs'] = {};
  for (const input of task.inputs) {
    if (input.modality === 'image') {
      inputs[input.name] = {
        png: (await degradeImage(picture, steps as Degradation[], { seed })).bytes,
      };
      continue;
    }
    const text =
      input.name === 'context'
        ? TEXT.document
        : input.name === 'question'
          ? task.inputs.some((i) => i.name === 'context')
            ? TEXT.documentQuestion
            : TEXT.imageQuestion
          : TEXT.sentence;
    inputs[input.name] = clozed ? maskWord(text, `${seed}:${input.name}`).text : text;
  }
  const reference =
    task.output === 'image'
      ? { png: (await degradeImage(picture, [], { seed })).bytes }
      : (textAnswer(task) ?? task.target);
  return { inputs, reference };
}
