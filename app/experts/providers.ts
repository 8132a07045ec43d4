/**
 * Expert providers besides Hugging Face: the simulator (made-up, labelled answers for trying a
 * society with no key), local image operations (no model at all), and the cassette wrapper
 * that replays and records answers. `createExpertProvider` picks one for a provider profile.
 */
import { restoreImage } from '../imageops/degrade.ts';
import { loadSharp } from '../imageops/sharp.ts';
import { imageFacts } from '../imageops/simulated-vision.ts';
import { checkRecordedAnswer } from '../providers/answer-guard.ts';
import type { Cassette, CassetteMode } from '../providers/cassette.ts';
import { expertKey, sha256Hex } from '../providers/expert-record.ts';
import {
  type BinaryValue,
  type ExpertOutputValue,
  type ExpertProvider,
  type ExpertRequest,
  type ExpertResult,
  isBinaryValue,
} from '../providers/expert-types.ts';
import { type Env, missingKeyMessage } from '../providers/profiles.ts';
import { clip } from '../providers/text.ts';
import {
  abortError,
  type CallOptions,
  ProviderError,
  type ProviderProfile,
} from '../providers/types.ts';
import type { ExpertProviders } from '../runtime/run-options.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { SIMULATED_LABEL } from '../schema/simulated.ts';
import { catalogueEntry, type LocalOperation } from './catalogue.ts';
import { createHuggingFaceExpertProvider } from './huggingface.ts';
import { renderAssetView, standInMesh } from './render-views.ts';
import { simulatedEntities } from './simulated-entities.ts';

/**
 * Made-up answers in each task's shape, the same for the same request: text says what a real
 * model would have been asked; images are flat colour tiles (an image-to-image expert returns
 * its input unchanged); labels and vectors come from the request's hash.
 */
export class SimulatedExpertProvider implements ExpertProvider {
  readonly id: string;
  constructor(id = 'simulated') {
    this.id = id;
  }

  async run(request: ExpertRequest, options: CallOptions): Promise<ExpertResult> {
    if (options.signal.aborted) throw abortError(options.signal.reason);
    const output = await simulatedOutput(request, options.maxImagePixels);
    return { output, model: request.model, simulated: true, source: 'simulated' };
  }
}

async function simulatedOutput(
  request: ExpertRequest,
  maxPixels: number | undefined,
): Promise<ExpertOutputValue> {
  const hash = expertKey(request);
  const text = (name: string) => {
    const value = request.inputs[name];
    return typeof value === 'string' ? clip(value, 60) : '';
  };
  const seed = (offset: number) => Number.parseInt(hash.slice(offset, offset + 6), 16);
  switch (request.task) {
    case 'image-to-text': {
      // What can honestly be said of the picture: its measured colour and size, so views of
      // different sides or objects get different captions.
      const image = request.inputs.image;
      const facts = isBinaryValue(image)
        ? await imageFacts(
            {
              model: request.model,
              messages: [
                {
                  role: 'user',
                  content: [
                    {
                      type: 'image',
                      url: `data:${image.mime};base64,${Buffer.from(image.bytes).toString('base64')}`,
                      mime: image.mime,
                    },
                  ],
                },
              ],
            },
            maxPixels,
          )
        : undefined;
      return `${SIMULATED_LABEL} a caption of the picture${facts ? ` (${facts})` : ''}`;
    }
    case 'visual-question-answering':
      return `${SIMULATED_LABEL} an answer to "${text('question')}"`;
    case 'question-answering':
      return `${SIMULATED_LABEL} an answer to "${text('question')}" from the context`;
    case 'translation':
      return `${SIMULATED_LABEL} a translation of "${text('text')}"`;
    case 'summarization':
      return `${SIMULATED_LABEL} a summary of "${text('text')}"`;
    case 'fill-mask':
      return `${SIMULATED_LABEL} ${(request.inputs.text as string | undefined)?.replace(/\[MASK\]|<mask>/g, 'something') ?? ''}`;
    case 'text-generation':
      return `${SIMULATED_LABEL} a continuation of "${text('text')}"`;
    case 'automatic-speech-recognition':
      return `${SIMULATED_LABEL} a transcript of the recording`;
    case 'text-classification':
    case 'image-classification':
    case 'object-detection': {
      // Above the detectors' usual 0.9 threshold, so a simulated detection finds something.
      const first = 0.9 + (seed(0) % 100) / 1000;
      return [
        { label: `${SIMULATED_LABEL} class A`, score: first },
        { label: `${SIMULATED_LABEL} class B`, score: 1 - first },
      ];
    }
    case 'feature-extraction': {
      // Asked for token vectors: one per word, from the word alone so equal words match,
      // between two marker vectors, as tokenizers wrap a text in [CLS] and [SEP].
      const words = String(request.inputs.text ?? '')
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean);
      if (request.parameters?.pooling === 'none' && words.length > 0) {
        return ['[CLS]', ...words, '[SEP]'].map((word) => hashVector(sha256Hex(word)));
      }
      return hashVector(hash);
    }
    case 'image-feature-extraction':
      // Asked for patch vectors: a few made-up ones, the picture's own.
      if (request.parameters?.pooling === 'none') {
        return [0, 1, 2, 3].map((i) => hashVector(sha256Hex(`${hash}:${i}`)));
      }
      return hashVector(hash);
    case 'token-classification':
      return simulatedEntities(String(request.inputs.text ?? ''));
    case 'text-to-image':
      return tile(seed(0), seed(6), seed(12));
    // A stand-in mesh, its file header labelled, shaped by the prompt (or the picture's hash).
    case 'text-to-3d':
      return standInMesh(String(request.inputs.prompt ?? ''), SIMULATED_LABEL);
    case 'image-to-3d':
      return standInMesh(hash, SIMULATED_LABEL);
    case 'render-views': {
      const asset = request.inputs.asset;
      if (!isBinaryValue(asset)) return tile(seed(0), seed(6), seed(12));
      const view = String(request.parameters?.view ?? 'front');
      return (await renderAssetView(asset, view, SIMULATED_LABEL)).image;
    }
    case 'image-to-image': {
      const image = request.inputs.image;
      return isBinaryValue(image) ? image : tile(seed(0), seed(6), seed(12));
    }
    case 'text-to-speech':
      return { bytes: new TextEncoder().encode(`${SIMULATED_LABEL} audio`), mime: 'text/plain' };
  }
}

/** Eight numbers in [-1, 1) drawn from a hex hash: a made-up embedding. */
function hashVector(hash: string): number[] {
  return Array.from(
    { length: 8 },
    (_, i) => ((Number.parseInt(hash.slice(i * 4, i * 4 + 6), 16) % 2000) - 1000) / 1000,
  );
}

/** A 64×64 PNG of one colour. */
async function tile(r: number, g: number, b: number): Promise<BinaryValue> {
  const sharp = await loadSharp();
  const bytes = await sharp({
    create: {
      width: 64,
      height: 64,
      channels: 3,
      background: { r: r % 256, g: g % 256, b: b % 256 },
    },
  })
    .png()
    .toBuffer();
  return { bytes: new Uint8Array(bytes), mime: 'image/png' };
}

/** The model id under which local operations are recorded: `local:denoise`. */
export function localModel(operation: LocalOperation): string {
  return `local:${operation}`;
}

/** Runs the catalogue's local operations (app/imageops): no model, no key, no network. */
export class LocalExpertProvider implements ExpertProvider {
  readonly id = 'local';

  async run(request: ExpertRequest, options: CallOptions): Promise<ExpertResult> {
    if (options.signal.aborted) throw abortError(options.signal.reason);
    const operation = request.model.startsWith('local:') ? request.model.slice(6) : '';
    if (operation === 'stand-in-3d' || operation === 'render-views') {
      return { output: await local3d(operation, request), model: request.model, source: 'local' };
    }
    const image = request.inputs.image;
    if (!isBinaryValue(image)) {
      throw new ProviderError('a local image operation needs an image input', {
        retryable: false,
      });
    }
    const params = request.parameters ?? {};
    const budget = { maxPixels: options.maxImagePixels ?? DEFAULT_LIMITS.imagePixels };
    const number = (name: string) =>
      typeof params[name] === 'number' ? (params[name] as number) : undefined;
    let result: { bytes: Uint8Array; mime: string };
    try {
      if (operation === 'upscale') {
        const factor = number('factor');
        result = await restoreImage(
          image.bytes,
          {
            kind: 'upscale',
            ...(factor ? { factor } : {}),
          },
          budget,
        );
      } else if (operation === 'denoise') {
        const size = number('size');
        result = await restoreImage(
          image.bytes,
          { kind: 'denoise', ...(size ? { size } : {}) },
          budget,
        );
      } else if (operation === 'deblur') {
        const sigma = number('sigma');
        result = await restoreImage(
          image.bytes,
          { kind: 'deblur', ...(sigma ? { sigma } : {}) },
          budget,
        );
      } else {
        throw new ProviderError(`no local operation "${operation}"`, { retryable: false });
      }
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      throw new ProviderError(`local ${operation}: ${(error as Error).message}`, {
        retryable: false,
        cause: error,
      });
    }
    return {
      output: { bytes: result.bytes, mime: result.mime },
      model: request.model,
      source: 'local',
    };
  }
}

/** The 3D operations: a labelled stand-in mesh for a prompt, or one view of a mesh. */
async function local3d(
  operation: 'stand-in-3d' | 'render-views',
  request: ExpertRequest,
): Promise<BinaryValue> {
  if (operation === 'stand-in-3d') {
    const prompt = request.inputs.prompt;
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      throw new ProviderError('the stand-in 3D model needs a prompt', { retryable: false });
    }
    return standInMesh(prompt);
  }
  const asset = request.inputs.asset;
  if (!isBinaryValue(asset)) {
    throw new ProviderError('rendering needs a 3D asset input', { retryable: false });
  }
  try {
    const view = String(request.parameters?.view ?? 'front');
    return (await renderAssetView(asset, view)).image;
  } catch (error) {
    throw new ProviderError(`local render-views: ${(error as Error).message}`, {
      retryable: false,
      cause: error,
    });
  }
}

/** Strict replay found no recording for an expert request. */
export class ExpertCassetteMissError extends ProviderError {
  /** `reason` is the cassette's `expertMissReason`: where the nearest recording parts from it. */
  constructor(reason: string) {
    super(reason, { retryable: false, code: 'cassette_miss' });
    this.name = 'ExpertCassetteMissError';
  }
}

/** About how many bytes an expert's output took on the wire. */
function outputBytes(output: ExpertOutputValue): number {
  if (isBinaryValue(output)) return output.bytes.byteLength;
  return Buffer.byteLength(typeof output === 'string' ? output : JSON.stringify(output));
}

/** Replays and/or records a cassette's expert answers around an optional live provider. */
export class ExpertCassetteProvider implements ExpertProvider {
  readonly id: string;
  readonly #cassette: Cassette;
  readonly #mode: CassetteMode;
  readonly #live: ExpertProvider | undefined;

  constructor(options: { cassette: Cassette; mode: CassetteMode; live?: ExpertProvider }) {
    if (options.mode !== 'replay' && !options.live) {
      throw new Error(`cassette mode '${options.mode}' needs a live provider`);
    }
    this.#cassette = options.cassette;
    this.#mode = options.mode;
    this.#live = options.live;
    this.id = options.live?.id ?? 'cassette';
  }

  /** The live provider's load, when it may be called (a replay alone needs none). */
  ready(): Promise<void> | undefined {
    return this.#mode === 'replay' ? undefined : this.#live?.ready?.();
  }

  async run(request: ExpertRequest, options: CallOptions): Promise<ExpertResult> {
    if (options.signal.aborted) throw abortError(options.signal.reason);
    if (this.#mode !== 'record') {
      const recorded = this.#cassette.lookupExpert(request, {
        fresh: this.#mode === 'replay-then-live',
      });
      if (recorded) {
        checkRecordedAnswer(outputBytes(recorded.output), options.maxAnswerBytes);
        return recorded;
      }
      if (this.#mode === 'replay')
        throw new ExpertCassetteMissError(this.#cassette.expertMissReason(request));
    }
    const result = await this.#live!.run(request, options);
    this.#cassette.recordExpert(request, result);
    return result;
  }
}

/** Stands in for a provider whose token is missing: every call fails at once, clearly. */
class MissingTokenExpertProvider implements ExpertProvider {
  readonly id: string;
  readonly #env: string;
  constructor(id: string, env: string) {
    this.id = id;
    this.#env = env;
  }
  async run(): Promise<ExpertResult> {
    throw new ProviderError(missingKeyMessage(this.#env), {
      retryable: false,
      code: 'missing_api_key',
    });
  }
}

/**
 * The expert provider for a profile: a `huggingface` profile drives the Hugging Face client
 * (hosted Inference Providers, or the endpoint at its baseUrl); a `simulated` one makes answers
 * up. A chat-only (openai-compatible) profile cannot run experts: that is an error.
 */
export function createExpertProvider(
  profile: ProviderProfile,
  env: Env = process.env,
): ExpertProvider {
  if (profile.kind === 'simulated') return new SimulatedExpertProvider(profile.name);
  if (profile.kind !== 'huggingface') {
    throw new Error(
      `provider "${profile.name}" speaks the OpenAI chat protocol and cannot run expert models; use a huggingface provider such as "hf-inference"`,
    );
  }
  const token = profile.apiKeyEnv ? env[profile.apiKeyEnv]?.trim() || undefined : undefined;
  // A custom endpoint (a self-hosted TGI) may need no token; the hosted service always does.
  if (!token && !profile.baseUrl && profile.apiKeyEnv)
    return new MissingTokenExpertProvider(profile.name, profile.apiKeyEnv);
  return createHuggingFaceExpertProvider({
    id: profile.name,
    ...(token ? { token } : {}),
    ...(profile.apiKeyEnv ? { tokenEnv: profile.apiKeyEnv } : {}),
    ...(profile.baseUrl ? { endpointUrl: profile.baseUrl } : {}),
  });
}

/** The local operation a module's node runs under the `local` backend, as a request model. */
export function localModelFor(module: string): string | undefined {
  const operation = catalogueEntry(module)?.local;
  return operation && localModel(operation);
}

/** The expert providers a run is handed (`RunOptions.experts`). */
export const expertProviders: ExpertProviders = {
  local: () => new LocalExpertProvider(),
  simulated: () => new SimulatedExpertProvider(),
  live: (profile, env) => createExpertProvider(profile, env),
  cassette: (options) => new ExpertCassetteProvider(options),
};
