/**
 * How each expert task runs on the Hugging Face client: which client method it calls with which
 * inputs, and how the answer is read. Image embeddings, which the client has no method for, are
 * built with the client's own request helpers.
 */
import type {
  FeatureExtractionArgs,
  InferenceClient,
  InferenceProviderOrPolicy,
  Options,
  QuestionAnsweringArgs,
  TextGenerationInput,
  TokenClassificationArgs,
  TranslationArgs,
} from '@huggingface/inference';
import type { ExpertOutputValue, ExpertRequest, ExpertTask } from '../../providers/expert-types.ts';
import { ProviderError } from '../../providers/types.ts';
import {
  binaryInput,
  optionalTextInput,
  parametersOf,
  poolingOf,
  serverParameters,
  textInput,
} from './inputs.ts';
import { loadHfLibrary } from './library.ts';
import {
  badResponse,
  bestSequence,
  DEFAULT_AUDIO_MIME,
  DEFAULT_IMAGE_MIME,
  parseJson,
  textField,
  toBinary,
  toEntities,
  toLabels,
  toTokenVectors,
  toVector,
} from './outputs.ts';

/** Where a call goes and how the client is told so, per request. */
export interface Target {
  model: string;
  endpointUrl?: string;
  provider?: InferenceProviderOrPolicy;
}

/** What a task runner gets: the client, where to send the call and the per-call options. */
export interface TaskContext {
  client: InferenceClient;
  request: ExpertRequest;
  target: Target;
  options: Options;
  /** The access token, for the one task the client has no method for. */
  token?: string;
}

/**
 * Image embeddings. The client has no image-feature-extraction task (4.13), so the request is
 * built by the client's own helpers for hf-inference (URL, headers, and on the hosted service
 * its check that the model is served for this task) and sent through the call's guarded fetch:
 * the image is the raw body, as for image classification. Only hf-inference and dedicated
 * endpoints speak this protocol; other hosted providers offer no such task.
 */
async function imageFeatures({ request, target, options, token }: TaskContext): Promise<unknown> {
  const data = binaryInput(request, 'image', 'image');
  if (target.provider && target.provider !== 'auto' && target.provider !== 'hf-inference') {
    throw new ProviderError(
      `image-feature-extraction runs on hf-inference or a dedicated endpoint only, not on provider "${target.provider}"`,
      { retryable: false, code: 'unsupported_task' },
    );
  }
  const { getProviderHelper, makeRequestOptions } = await loadHfLibrary();
  const { url, info } = await makeRequestOptions(
    {
      model: target.model,
      ...(target.endpointUrl ? { endpointUrl: target.endpointUrl } : {}),
      ...(token ? { accessToken: token } : {}),
      data,
    },
    getProviderHelper('hf-inference', undefined),
    { task: 'image-feature-extraction', ...options },
  );
  const response = await (options.fetch ?? fetch)(url, { ...info, signal: options.signal });
  const text = await response.text();
  const json = parseJson(text);
  if (json === undefined) throw badResponse(request, 'expected JSON numbers');
  return json;
}

/**
 * How each task is run: `call` checks the request's inputs (before anything is sent) and makes
 * the client call; `read` turns what came back into the task's output.
 */
export interface TaskSpec {
  call(ctx: TaskContext): Promise<unknown>;
  read(request: ExpertRequest, value: unknown): ExpertOutputValue | Promise<ExpertOutputValue>;
}

export const TASKS: Record<ExpertTask, TaskSpec> = {
  'image-to-text': {
    call: ({ client, request, target, options }) =>
      client.imageToText(
        {
          ...target,
          inputs: binaryInput(request, 'image', 'image'),
          parameters: parametersOf(request),
        },
        options,
      ),
    read: (request, value) => textField(request, value, 'generated_text'),
  },
  'visual-question-answering': {
    call: ({ client, request, target, options }) => {
      const image = binaryInput(request, 'image', 'image');
      const question = textInput(request, 'question');
      return client.visualQuestionAnswering(
        { ...target, inputs: { image, question }, parameters: parametersOf(request) },
        options,
      );
    },
    read: (request, value) => textField(request, value, 'answer'),
  },
  'text-to-image': {
    call: ({ client, request, target, options }) =>
      client.textToImage(
        { ...target, inputs: textInput(request, 'prompt'), parameters: parametersOf(request) },
        { ...options, outputType: 'blob' },
      ),
    read: (request, value) => toBinary(request, value, DEFAULT_IMAGE_MIME),
  },
  'image-to-image': {
    call: ({ client, request, target, options }) => {
      const image = binaryInput(request, 'image', 'image');
      const prompt = optionalTextInput(request, 'prompt');
      // The prompt travels as a task parameter. With parameters the client sends the image as
      // base64 JSON; without any, as the raw request body.
      const parameters = { ...parametersOf(request), ...(prompt === undefined ? {} : { prompt }) };
      return client.imageToImage(
        {
          ...target,
          inputs: image,
          parameters: Object.keys(parameters).length > 0 ? parameters : undefined,
        },
        options,
      );
    },
    read: (request, value) => toBinary(request, value, DEFAULT_IMAGE_MIME),
  },
  'image-classification': {
    // The image is the raw request body, so the protocol leaves no room for task parameters.
    call: ({ client, request, target, options }) =>
      client.imageClassification(
        { ...target, inputs: binaryInput(request, 'image', 'image') },
        options,
      ),
    read: (request, value) => toLabels(request, value, false),
  },
  'object-detection': {
    call: ({ client, request, target, options }) =>
      client.objectDetection(
        { ...target, inputs: binaryInput(request, 'image', 'image') },
        options,
      ),
    read: (request, value) => toLabels(request, value, true),
  },
  translation: {
    call: ({ client, request, target, options }) =>
      client.translation(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: parametersOf(request) as TranslationArgs['parameters'],
        },
        options,
      ),
    read: (request, value) => textField(request, value, 'translation_text'),
  },
  summarization: {
    call: ({ client, request, target, options }) =>
      client.summarization(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: (request, value) => textField(request, value, 'summary_text'),
  },
  'fill-mask': {
    call: ({ client, request, target, options }) =>
      client.fillMask(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: bestSequence,
  },
  'question-answering': {
    call: ({ client, request, target, options }) => {
      const question = textInput(request, 'question');
      const context = textInput(request, 'context');
      return client.questionAnswering(
        {
          ...target,
          inputs: { question, context },
          parameters: parametersOf(request) as QuestionAnsweringArgs['parameters'],
        },
        options,
      );
    },
    read: (request, value) => textField(request, value, 'answer'),
  },
  'text-classification': {
    call: ({ client, request, target, options }) =>
      client.textClassification(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: (request, value) => toLabels(request, value, false),
  },
  'token-classification': {
    call: ({ client, request, target, options }) =>
      client.tokenClassification(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: parametersOf(request) as TokenClassificationArgs['parameters'],
        },
        options,
      ),
    read: toEntities,
  },
  'text-generation': {
    call: ({ client, request, target, options }) =>
      client.textGeneration(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: parametersOf(request) as TextGenerationInput['parameters'],
        },
        options,
      ),
    read: (request, value) => textField(request, value, 'generated_text'),
  },
  'automatic-speech-recognition': {
    call: ({ client, request, target, options }) =>
      client.automaticSpeechRecognition(
        { ...target, inputs: binaryInput(request, 'audio', 'audio') },
        options,
      ),
    read: (request, value) => textField(request, value, 'text'),
  },
  'text-to-speech': {
    call: ({ client, request, target, options }) =>
      client.textToSpeech(
        { ...target, inputs: textInput(request, 'text'), parameters: parametersOf(request) },
        options,
      ),
    read: (request, value) => toBinary(request, value, DEFAULT_AUDIO_MIME),
  },
  'image-to-3d': {
    call: async ({ request }) => {
      throw new ProviderError(
        `the Hugging Face inference client has no image-to-3d task, so model "${request.model}" ` +
          'cannot run through a Hugging Face provider; use a provider that supports image-to-3d',
        { retryable: false, code: 'unsupported_task' },
      );
    },
    read: (request) => {
      throw badResponse(request, 'image-to-3d is not supported');
    },
  },
  'text-to-3d': {
    call: async ({ request }) => {
      throw new ProviderError(
        `no Hugging Face inference provider serves text-to-3d today, and the client has no such task, so model "${request.model}" ` +
          'cannot run here; the local backend makes a labelled stand-in mesh instead',
        { retryable: false, code: 'unsupported_task' },
      );
    },
    read: (request) => {
      throw badResponse(request, 'text-to-3d is not supported');
    },
  },
  'render-views': {
    call: async () => {
      throw new ProviderError(
        'rendering a 3D asset is not a Hugging Face task; use the local backend (a flat-shaded renderer of OBJ meshes)',
        { retryable: false, code: 'unsupported_task' },
      );
    },
    read: (request) => {
      throw badResponse(request, 'render-views is not a Hugging Face task');
    },
  },
  'feature-extraction': {
    call: ({ client, request, target, options }) => {
      poolingOf(request);
      return client.featureExtraction(
        {
          ...target,
          inputs: textInput(request, 'text'),
          parameters: serverParameters(request) as FeatureExtractionArgs['parameters'],
        },
        options,
      );
    },
    read: (request, value) => {
      const tokens = poolingOf(request) === 'none' ? toTokenVectors(value) : undefined;
      if (tokens) return tokens;
      const vector = toVector(value);
      if (!vector) throw badResponse(request, 'expected a vector or one vector per token');
      return vector;
    },
  },
  'image-feature-extraction': {
    call: imageFeatures,
    // Vision transformers answer one vector per patch; they are mean-pooled into one unless
    // `pooling: 'none'` keeps them (OpenAGI's ViT distance compares them all).
    read: (request, value) => {
      const patches = poolingOf(request) === 'none' ? toTokenVectors(value) : undefined;
      if (patches) return patches;
      const vector = toVector(value);
      if (!vector) throw badResponse(request, 'expected a vector or one vector per patch');
      return vector;
    },
  },
};
