/**
 * The expert catalogue: every kind of expert model a society can use, with typed ports.
 * It covers OpenAGI's 15 modules (Ge et al., Tables A.1–A.3; the ids its code loads are the
 * alternates) and the experts NLSOM's societies rely on (visual question answering, image
 * captioning, text-to-image, named entities for captioning, text-to-3D and a renderer of views
 * for 3D design), plus speech and image-to-3D so those modalities have producers.
 *
 * An entry's `task` is the Hugging Face pipeline that runs it; its ports are what the editor
 * and compiler check edges against. Where a paper's model is not hosted anywhere (the
 * Restormer and colorizer checkpoints live on GitHub only), the entry says so and names the
 * nearest hosted model and, where one exists, a local operation that stands in for it.
 */
import type { Modality } from '../schema/modality.ts';
import type { ExpertTask } from './types.ts';

export interface CataloguePort {
  name: string;
  modality: Modality;
  /** Optional inputs may stay unconnected. */
  optional?: boolean;
  description?: string;
}

/**
 * A local operation that can stand in for a module with no hosted model: image restoration
 * (app/imageops), a labelled stand-in 3D mesh, and a plain renderer of 3D meshes
 * (app/experts/render-views.ts).
 */
export type LocalOperation = 'upscale' | 'denoise' | 'deblur' | 'stand-in-3d' | 'render-views';

export interface CatalogueEntry {
  /** Stable id: what documents and plans store. */
  id: string;
  /** The name users and planners see. */
  title: string;
  /** Other spellings, as papers, code and planners write them (matched case-insensitively). */
  aliases: string[];
  task: ExpertTask;
  /** One line for a planner's prompt: what it is for and what it takes. */
  description: string;
  inputs: CataloguePort[];
  outputs: CataloguePort[];
  models: {
    /** The model used unless the node names another; hosted through Hugging Face. */
    default: string;
    /** Other models for the same job, the paper's and its code's first. */
    alternates: string[];
    /** The paper's own model, when it is not the default, with why. */
    paper?: { model: string; note: string };
  };
  /** A local operation that needs no model. */
  local?: LocalOperation;
  /** A `task` parameter template the backend needs (the prompt for instruction editors). */
  defaultParameters?: Record<string, unknown>;
  /**
   * The module runs once per item of this list parameter (the renderer, once per view), each
   * call given one item under `each.as`; its list output gathers the answers in order.
   */
  each?: { parameter: string; as: string };
  /** Which paper's societies use it. */
  papers: Array<'openagi' | 'nlsom'>;
}

const text = (name = 'text', description?: string): CataloguePort =>
  description ? { name, modality: 'text', description } : { name, modality: 'text' };
const image = (name = 'image'): CataloguePort => ({ name, modality: 'image' });

/** A classifier answers with labels; its `text` output is the best one, for chains. */
const labelOutputs = (textDescription: string): CataloguePort[] => [
  text('text', textDescription),
  { name: 'labels', modality: 'list<label>', description: 'every class with its score' },
];

// The restoration modules share a hosted instruction-following image editor as their nearest
// hosted stand-in; whether a given provider serves it at a given time is not guaranteed.
const INSTRUCT_EDITOR = 'timbrooks/instruct-pix2pix';

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    id: 'sentiment-analysis',
    title: 'Sentiment Analysis',
    aliases: ['Sentiment Analysis', 'sentiment'],
    task: 'text-classification',
    description: 'Tells whether a sentence is positive or negative. Takes English text.',
    inputs: [text()],
    outputs: labelOutputs('the sentiment, e.g. POSITIVE'),
    models: {
      default: 'distilbert-base-uncased-finetuned-sst-2-english',
      alternates: ['yiyanhkust/finbert-tone'],
      paper: {
        model: 'yiyanhkust/finbert-tone',
        note: 'the paper names FinBERT; its code loads the SST-2 DistilBERT used here',
      },
    },
    papers: ['openagi'],
  },
  {
    id: 'text-summarization',
    title: 'Text Summarization',
    aliases: ['Text Summarization', 'Summarization', 'Summarisation'],
    task: 'summarization',
    description: 'Shortens a sentence or a paragraph to its gist. Takes English text.',
    inputs: [text()],
    outputs: [text()],
    models: { default: 'facebook/bart-large-cnn', alternates: ['google/pegasus-xsum'] },
    papers: ['openagi'],
  },
  {
    id: 'machine-translation',
    title: 'Machine Translation',
    aliases: ['Machine Translation', 'Translation', 'Translate'],
    task: 'translation',
    description: 'Translates English text into German.',
    inputs: [text()],
    outputs: [text()],
    models: { default: 't5-base', alternates: ['google-t5/t5-base', 'Helsinki-NLP/opus-mt-en-de'] },
    papers: ['openagi'],
  },
  {
    id: 'fill-mask',
    title: 'Fill Mask',
    aliases: ['Fill Mask', 'Fill-Mask', 'Mask Filling'],
    task: 'fill-mask',
    description: 'Restores the word hidden by [MASK] in a sentence. Takes English text.',
    inputs: [text()],
    outputs: [text()],
    models: {
      default: 'distilbert-base-uncased',
      alternates: ['distilroberta-base', 'bert-base-uncased'],
      paper: {
        model: 'distilroberta-base',
        note: 'the paper names DistilRoBERTa; its code loads the DistilBERT used here',
      },
    },
    papers: ['openagi'],
  },
  {
    id: 'question-answering',
    title: 'Question Answering',
    aliases: ['Question Answering', 'QA', 'Extractive Question Answering'],
    task: 'question-answering',
    description: 'Answers a question from a given context passage. Takes two texts.',
    inputs: [text('context', 'the passage to read'), text('question')],
    outputs: [text()],
    models: {
      default: 'distilbert-base-cased-distilled-squad',
      alternates: ['deepset/roberta-base-squad2'],
    },
    papers: ['openagi'],
  },
  {
    id: 'image-classification',
    title: 'Image Classification',
    aliases: ['Image Classification', 'Classification'],
    task: 'image-classification',
    description: 'Names the class of the main object in a picture. Takes an image.',
    inputs: [image()],
    outputs: labelOutputs('the most likely class'),
    models: { default: 'google/vit-base-patch16-224', alternates: [] },
    papers: ['openagi'],
  },
  {
    id: 'object-detection',
    title: 'Object Detection',
    aliases: ['Object Detection', 'Detection'],
    task: 'object-detection',
    description: 'Finds the objects in a picture and names them. Takes an image.',
    inputs: [image()],
    outputs: labelOutputs('the names of the objects found, comma-separated'),
    models: { default: 'facebook/detr-resnet-101', alternates: ['facebook/detr-resnet-50'] },
    defaultParameters: { threshold: 0.9 },
    papers: ['openagi'],
  },
  {
    id: 'colorization',
    title: 'Colorization',
    aliases: ['Colorization', 'Colourization', 'Colorize'],
    task: 'image-to-image',
    description: 'Adds natural colours to a grayscale photo. Takes an image.',
    inputs: [image()],
    outputs: [image()],
    models: {
      default: INSTRUCT_EDITOR,
      alternates: [],
      paper: {
        model: 'richzhang/colorization (siggraph17)',
        note: 'the paper’s colorizer is a GitHub checkpoint with no hosted model; the default is the nearest hosted stand-in, an instruction-following image editor asked to colourize; there is no local colorization',
      },
    },
    defaultParameters: { prompt: 'colorize this black and white photo with natural colors' },
    papers: ['openagi'],
  },
  {
    id: 'image-super-resolution',
    title: 'Image Super-Resolution',
    aliases: ['Image Super-Resolution', 'Image Super Resolution', 'Super Resolution', 'Upscaling'],
    task: 'image-to-image',
    description: 'Makes a sharp high-resolution picture from a low-resolution one. Takes an image.',
    inputs: [image()],
    outputs: [image()],
    models: {
      default: 'caidas/swin2SR-classical-sr-x2-64',
      alternates: ['caidas/swin2SR-classical-sr-x4-64'],
    },
    local: 'upscale',
    papers: ['openagi'],
  },
  {
    id: 'image-denoising',
    title: 'Image Denoising',
    aliases: ['Image Denoising', 'Denoising', 'Denoise'],
    task: 'image-to-image',
    description: 'Removes noise from a photo. Takes an image.',
    inputs: [image()],
    outputs: [image()],
    models: {
      default: INSTRUCT_EDITOR,
      alternates: [],
      paper: {
        model: 'swz30/Restormer (real_denoising)',
        note: 'Restormer is a GitHub checkpoint with no hosted model; use the local median filter offline, or the hosted instruction editor',
      },
    },
    defaultParameters: { prompt: 'remove the noise from this photo' },
    local: 'denoise',
    papers: ['openagi'],
  },
  {
    id: 'image-deblurring',
    title: 'Image Deblurring',
    aliases: ['Image Deblurring', 'Image Delurring', 'Deblurring', 'Deblur'],
    task: 'image-to-image',
    description: 'Sharpens a blurry photo. Takes an image.',
    inputs: [image()],
    outputs: [image()],
    models: {
      default: INSTRUCT_EDITOR,
      alternates: [],
      paper: {
        model: 'swz30/Restormer (single_image_defocus_deblurring)',
        note: 'Restormer is a GitHub checkpoint with no hosted model; use the local sharpening offline, or the hosted instruction editor',
      },
    },
    defaultParameters: { prompt: 'make this blurry photo sharp' },
    local: 'deblur',
    papers: ['openagi'],
  },
  {
    id: 'visual-question-answering',
    title: 'Visual Question Answering',
    aliases: ['Visual Question Answering', 'VQA'],
    task: 'visual-question-answering',
    description: 'Answers a question about a picture. Takes an image and a question.',
    inputs: [image(), text('question')],
    outputs: [text()],
    models: {
      default: 'dandelin/vilt-b32-finetuned-vqa',
      alternates: ['microsoft/git-base-textvqa', 'Salesforce/blip-vqa-base'],
      paper: {
        model: 'microsoft/git-base-textvqa',
        note: 'OpenAGI names GIT; its code loads the ViLT used here. NLSOM’s VQA members are BLIP-2, OFA and mPLUG (templates/nlsom-vqa-experts.society.json; OFA’s and mPLUG’s ids are ModelScope’s)',
      },
    },
    papers: ['openagi', 'nlsom'],
  },
  {
    id: 'image-captioning',
    title: 'Image Captioning',
    aliases: ['Image Captioning', 'Captioning', 'Image to Text', 'Caption'],
    task: 'image-to-text',
    description: 'Describes what a picture shows in a sentence. Takes an image.',
    inputs: [image()],
    outputs: [text()],
    models: {
      default: 'nlpconnect/vit-gpt2-image-captioning',
      alternates: ['Salesforce/blip-image-captioning-large'],
    },
    papers: ['openagi', 'nlsom'],
  },
  {
    id: 'text-to-image-generation',
    title: 'Text-to-Image Generation',
    aliases: ['Text-to-Image Generation', 'Text to Image Generation', 'Text to Image', 'Painter'],
    task: 'text-to-image',
    description: 'Paints a picture from a description. Takes English text.',
    inputs: [text('prompt', 'what to paint')],
    outputs: [image()],
    models: {
      default: 'CompVis/stable-diffusion-v1-4',
      alternates: ['stabilityai/stable-diffusion-xl-base-1.0'],
    },
    papers: ['openagi', 'nlsom'],
  },
  {
    id: 'text-generation',
    title: 'Text Generation',
    aliases: ['Text Generation', 'Text Completion'],
    task: 'text-generation',
    description: 'Continues a text. Takes English text.',
    inputs: [text()],
    outputs: [text()],
    models: { default: 'gpt2', alternates: ['openai-community/gpt2'] },
    papers: ['openagi'],
  },
  {
    id: 'speech-recognition',
    title: 'Speech Recognition',
    aliases: ['Speech Recognition', 'Automatic Speech Recognition', 'ASR', 'Transcription'],
    task: 'automatic-speech-recognition',
    description: 'Writes down what is said in a recording. Takes audio.',
    inputs: [{ name: 'audio', modality: 'audio' }],
    outputs: [text()],
    models: {
      default: 'openai/whisper-large-v3',
      alternates: ['facebook/wav2vec2-large-960h-lv60-self'],
    },
    papers: [],
  },
  {
    id: 'text-to-speech',
    title: 'Text-to-Speech',
    aliases: ['Text-to-Speech', 'Text to Speech', 'TTS', 'Speech Synthesis'],
    task: 'text-to-speech',
    description: 'Reads a text aloud. Takes English text.',
    inputs: [text()],
    outputs: [{ name: 'audio', modality: 'audio' }],
    models: { default: 'facebook/mms-tts-eng', alternates: [] },
    papers: [],
  },
  {
    id: 'named-entity-recognition',
    title: 'Named Entity Recognition',
    aliases: ['Named Entity Recognition', 'NER', 'Entity Extraction', 'Token Classification'],
    task: 'token-classification',
    description:
      'Finds the names of people, organizations, places and other entities in a text. Takes English text.',
    inputs: [text()],
    outputs: [
      text('text', 'the entities found, comma-separated, each once, in text order'),
      {
        name: 'entities',
        modality: 'json',
        description: 'every entity: word, type (PER, ORG, LOC, MISC), score, start and end',
      },
    ],
    models: {
      default: 'dslim/bert-base-NER',
      alternates: [
        'dbmdz/bert-large-cased-finetuned-conll03-english',
        'Jean-Baptiste/roberta-large-ner-english',
      ],
      paper: {
        model: 'spaCy en_core_web_sm',
        note: 'NLSOM extracts entities with spaCy, a local library with no hosted model; the default is a hosted BERT trained for the same job on CoNLL-2003',
      },
    },
    // Whole entities ("New York"), not one tag per word piece.
    defaultParameters: { aggregation_strategy: 'simple' },
    papers: ['nlsom'],
  },
  {
    id: 'text-to-3d',
    title: 'Text-to-3D Generation',
    aliases: ['Text-to-3D Generation', 'Text to 3D', 'Text-to-3D', '3D Designer'],
    task: 'text-to-3d',
    description: 'Builds a 3D model of an object from a description. Takes English text.',
    inputs: [text('prompt', 'the object to build')],
    outputs: [{ name: 'asset', modality: 'asset3d', description: 'the 3D model file' }],
    models: {
      default: 'openai/shap-e',
      alternates: ['ashawkey/LGM'],
      paper: {
        model: 'Luma Imagine 3D',
        note: 'NLSOM’s designer is Luma’s own hosted service, not a Hub model. No Hugging Face inference provider serves a text-to-3D model today (the client has no such task), so the hosted backend refuses; the local backend makes a stand-in mesh, labelled so in the file and in the run',
      },
    },
    local: 'stand-in-3d',
    papers: ['nlsom'],
  },
  {
    id: 'multi-view-rendering',
    title: 'Multi-View Rendering',
    aliases: ['Multi-View Rendering', 'Multi-view Renderer', 'Render Views', '3D Rendering'],
    task: 'render-views',
    description:
      'Draws a 3D model from several sides, one picture per view. Takes a 3D asset (OBJ).',
    inputs: [{ name: 'asset', modality: 'asset3d' }],
    outputs: [
      { name: 'views', modality: 'list<image>', description: 'one picture per view, in order' },
      { name: 'image', modality: 'image', description: 'the first view' },
    ],
    models: {
      default: 'local:render-views',
      alternates: [],
      paper: {
        model: 'renders of Luma Imagine 3D assets',
        note: 'no hosted model renders 3D assets: the local backend draws OBJ meshes orthographically with flat shading (no textures), which is enough for captioners and CLIP to tell sides and colours apart',
      },
    },
    local: 'render-views',
    // NLSOM's examples caption the back, right and left views (App. H).
    defaultParameters: { views: ['back', 'right', 'left'] },
    each: { parameter: 'views', as: 'view' },
    papers: ['nlsom'],
  },
  {
    id: 'image-to-3d',
    title: 'Image to 3D',
    aliases: ['Image to 3D', 'Image-to-3D', '3D Reconstruction'],
    task: 'image-to-3d',
    description: 'Builds a 3D model of the object in a picture. Takes an image.',
    inputs: [image()],
    outputs: [{ name: 'asset', modality: 'asset3d' }],
    models: { default: 'stabilityai/stable-fast-3d', alternates: ['tencent/Hunyuan3D-2'] },
    papers: [],
  },
];

const BY_ID = new Map(CATALOGUE.map((e) => [e.id, e]));

/** The entry with this id, or undefined. */
export function catalogueEntry(id: string): CatalogueEntry | undefined {
  return BY_ID.get(id);
}

/** The entries OpenAGI's planners choose from (its 15 modules). */
export function openAgiModules(): CatalogueEntry[] {
  return CATALOGUE.filter((e) => e.papers.includes('openagi'));
}

/** Lower case, with everything but letters and digits squeezed to single spaces. */
export function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const BY_NAME = new Map<string, CatalogueEntry>();
for (const entry of CATALOGUE) {
  for (const name of [entry.id, entry.title, ...entry.aliases])
    BY_NAME.set(normalizeName(name), entry);
}

/** The entry a name, id or alias denotes exactly (ignoring case, spaces and punctuation). */
export function findExpert(name: string): CatalogueEntry | undefined {
  return BY_NAME.get(normalizeName(name));
}
