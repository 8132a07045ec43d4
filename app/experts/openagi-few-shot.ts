/**
 * The worked examples of OpenAGI's few-shot planner (Ge et al., Sec. 5.3 and Fig. A.5): the 15
 * training tasks and their hand-made solutions from the OpenAGI repository
 * (agiresearch/OpenAGI @ 22190c5, research/benchmark_tasks/train_task_description.txt and
 * train_model_sequence.txt). Its few-shot script puts every training pair before the task
 * (research/benchmark_tasks/few_shot/few_shot_schema_gpt.py reads up to 50 lines of a 15-line
 * file), so the prompt has 15 examples; Fig. A.5 prints five of them, three elided.
 *
 * The plans are the repository's, module for module (as catalogue ids). The tasks are said in
 * our own words; the degradations, the goal and the language are the original's.
 */

/** One worked example: a task and the modules that solve it, in order. */
export interface FewShotExample {
  task: string;
  plan: string[];
}

export const OPENAGI_FEW_SHOT: readonly FewShotExample[] = [
  {
    task: 'A grayscale picture that is low-resolution, noisy and blurry: give back the regular picture.',
    plan: ['image-super-resolution', 'image-denoising', 'image-deblurring', 'colorization'],
  },
  {
    task: 'A noisy, blurry grayscale picture: write its caption in Chinese.',
    plan: [
      'image-denoising',
      'image-deblurring',
      'colorization',
      'image-captioning',
      'machine-translation',
    ],
  },
  {
    task: 'A grayscale picture: name its class in English.',
    plan: ['colorization', 'image-classification'],
  },
  {
    task: 'A Chinese text: make a picture of it.',
    plan: ['machine-translation', 'text-to-image-generation'],
  },
  {
    task: 'A Chinese text: give its sentiment in Chinese.',
    plan: ['machine-translation', 'sentiment-analysis', 'machine-translation'],
  },
  {
    task: 'An English text: summarise it in Chinese.',
    plan: ['text-summarization', 'machine-translation'],
  },
  {
    task: 'A low-resolution, blurry picture: give back the regular picture.',
    plan: ['image-super-resolution', 'image-deblurring'],
  },
  {
    task: 'A blurry grayscale picture: list the objects in it in Chinese.',
    plan: ['image-deblurring', 'colorization', 'object-detection', 'machine-translation'],
  },
  {
    task: 'A grayscale picture: list the objects in it in English.',
    plan: ['colorization', 'object-detection'],
  },
  {
    task: 'An English text with a masked word: continue the text in Chinese.',
    plan: ['fill-mask', 'text-generation', 'machine-translation'],
  },
  {
    task: 'A grayscale picture that is low-resolution, noisy and blurry: name its class in Chinese.',
    plan: [
      'image-super-resolution',
      'image-denoising',
      'image-deblurring',
      'colorization',
      'image-classification',
      'machine-translation',
    ],
  },
  {
    task: 'A noisy grayscale picture: write its caption in Chinese.',
    plan: ['image-denoising', 'colorization', 'image-captioning', 'machine-translation'],
  },
  {
    task: 'A low-resolution, blurry picture: list the objects in it in English.',
    plan: ['image-super-resolution', 'image-deblurring', 'object-detection'],
  },
  {
    task: 'An English text: make a picture of it.',
    plan: ['text-to-image-generation'],
  },
  {
    task: 'An English text with a masked word: continue the text in English.',
    plan: ['fill-mask', 'text-generation'],
  },
];
