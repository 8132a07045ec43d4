/**
 * Replays real recorded Hugging Face inference traffic (router.huggingface.co, recorded by the
 * client's own test suite) through a local stub: first through the real @huggingface/inference
 * client, to prove the stub answers the client as the real service did, then through our expert
 * provider. A request is answered only when it matches a recorded one (method, model, route and
 * body), so a replay also checks what the client sends today against what was recorded.
 *
 * The tapes live in the shared data folder beside the checkout, which a fresh clone lacks; then
 * the whole file is skipped, saying so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceClient, InferenceClientProviderApiError } from '@huggingface/inference';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHuggingFaceExpertProvider } from '../app/experts/huggingface.ts';
import {
  EXPERT_TASKS,
  type ExpertRequest,
  type ExpertTask,
  type LabelValue,
} from '../app/experts/types.ts';
import { ProviderError } from '../app/providers/types.ts';
import {
  forgiveLegacyFields,
  modelRoute,
  type StubHf,
  startStubHuggingFace,
  type Tape,
} from './support/stub-hf.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const TAPES_FILE = join(
  repoRoot,
  '..',
  'shared',
  'external-data',
  'huggingface',
  'hf-inference-tapes-subset.json',
);
const present = existsSync(TAPES_FILE);
if (!present) {
  console.log(
    `hf-tapes: skipped, ${TAPES_FILE} is absent (the shared data folder sits beside the ` +
      'checkout on the development machine; a fresh clone does not have it)',
  );
}
const TAPES: Record<string, Tape> = present ? JSON.parse(readFileSync(TAPES_FILE, 'utf8')) : {};

/**
 * The pipeline of every model in the subset, as the Hub tags it. Chat models count as
 * 'conversational' only when the tape went to their chat route.
 */
const MODEL_TASKS: Record<string, string> = {
  'distilbert-base-uncased-finetuned-sst-2-english': 'text-classification',
  'distilbert/distilbert-base-uncased-finetuned-sst-2-english': 'text-classification',
  't5-base': 'translation',
  'google-t5/t5-base': 'translation',
  'facebook/bart-large-cnn': 'summarization',
  'google/pegasus-xsum': 'summarization',
  'bert-base-uncased': 'fill-mask',
  'google-bert/bert-base-uncased': 'fill-mask',
  'distilbert-base-uncased': 'fill-mask',
  // Recorded as fill-mask calls to a model that does not exist (404).
  'this-model-does-not-exist-123': 'fill-mask',
  'this-model/does-not-exist-123': 'fill-mask',
  'deepset/roberta-base-squad2': 'question-answering',
  'dandelin/vilt-b32-finetuned-vqa': 'visual-question-answering',
  'google/vit-base-patch16-224': 'image-classification',
  'facebook/detr-resnet-50': 'object-detection',
  'nlpconnect/vit-gpt2-image-captioning': 'image-to-text',
  gpt2: 'text-generation',
  'openai-community/gpt2': 'text-generation',
  'google/flan-t5-xxl': 'text-generation',
  'meta-llama/Llama-2-7b-hf': 'text-generation',
  'meta-llama/Llama-3.2-3B': 'text-generation',
  'OpenAssistant/oasst-sft-4-pythia-12b-epoch-3.5': 'text-generation',
  'mistralai/Mistral-7B-Instruct-v0.2': 'text-generation',
  'google/gemma-2b': 'text-generation',
  'HuggingFaceH4/zephyr-7b-beta': 'text-generation',
  'microsoft/DialoGPT-large': 'conversational (legacy inputs)',
  'google/tapas-base-finetuned-wtq': 'table-question-answering',
  'dbmdz/bert-large-cased-finetuned-conll03-english': 'token-classification',
  'facebook/bart-large-mnli': 'zero-shot-classification',
  'sentence-transformers/paraphrase-xlm-r-multilingual-v1': 'sentence-similarity',
  'facebook/wav2vec2-large-960h-lv60-self': 'automatic-speech-recognition',
  'superb/hubert-large-superb-er': 'audio-classification',
  'facebook/detr-resnet-50-panoptic': 'image-segmentation',
  'impira/layoutlm-document-qa': 'document-question-answering',
  'naver-clova-ix/donut-base-finetuned-docvqa': 'document-question-answering',
  'scikit-learn/Fish-Weight': 'tabular-regression',
  'vvmnnnkv/wine-quality': 'tabular-classification',
  'speechbrain/sepformer-wham': 'audio-to-audio',
  'openai/clip-vit-large-patch14-336': 'zero-shot-image-classification',
};

/** Tasks of the expert catalogue whose tapes we try to replay (plus chat completion). */
const REPLAY_TASKS = new Set([
  'text-classification',
  'translation',
  'summarization',
  'fill-mask',
  'question-answering',
  'visual-question-answering',
  'image-classification',
  'object-detection',
  'image-to-text',
  'feature-extraction',
  'conversational',
]);

interface PlannedTape {
  key: string;
  tape: Tape;
  task: string;
  model: string;
  /** The recorded path, replayed on the stub as the client's endpoint. */
  path: string;
  body: Record<string, unknown> | undefined;
  /** Why it cannot be replayed, when it cannot. */
  skip?: string;
}

function plan(key: string, tape: Tape): PlannedTape {
  const path = new URL(tape.url).pathname;
  const route = modelRoute(path);
  const model = route?.model ?? '?';
  const chatRoute = route?.route === '/v1/chat/completions';
  const task = chatRoute ? 'conversational' : (MODEL_TASKS[model] ?? 'unknown');
  const raw = tape.init.body;
  const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
  const base = { key, tape, task, model, path, body };
  const expertTask = (EXPERT_TASKS as readonly string[]).includes(task);
  if (!expertTask && task !== 'conversational') {
    return { ...base, skip: 'not a task of the expert catalogue' };
  }
  if (task === 'text-generation') {
    return {
      ...base,
      skip:
        body && 'messages' in body
          ? 'a chat body sent to the bare model URL; the client now posts chat to /v1/chat/completions'
          : 'the client now sends text generation as an OpenAI completion to /v1/completions',
    };
  }
  if (!body) return { ...base, skip: 'binary request body, not recorded in the subset' };
  if (!REPLAY_TASKS.has(task)) return { ...base, skip: 'not in the replayed task list' };
  if (route?.route && !chatRoute) return { ...base, skip: `route ${route.route} not replayed` };
  return base;
}

const PLANNED = Object.entries(TAPES).map(([key, tape]) => plan(key, tape));
const REPLAYABLE = PLANNED.filter((p) => !p.skip);

/** Counts per task, printed at the end. */
const replayed = new Map<string, number>();
const viaProvider = new Map<string, number>();
const responseOnly = new Map<string, number>();
const bump = (counts: Map<string, number>, task: string) =>
  counts.set(task, (counts.get(task) ?? 0) + 1);

function parseBody(tape: Tape): unknown {
  return JSON.parse(tape.response.body);
}

/** The data of each server-sent event of a recorded stream, parsed, up to [DONE]. */
function sseEvents(text: string): unknown[] {
  const events: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') break;
    if (data) events.push(JSON.parse(data));
  }
  return events;
}

/** The recorded error text of a failed exchange, when the body carries one. */
function recordedError(tape: Tape): string | undefined {
  try {
    const body = parseBody(tape) as { error?: unknown };
    return typeof body.error === 'string' ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** What the client returns for a recorded answer: the parts of the body it hands back. */
function clientView(task: string, body: unknown): unknown {
  const list = body as unknown[];
  switch (task) {
    case 'text-classification':
      return list[0];
    case 'translation':
      return list.length === 1 ? list[0] : list;
    case 'summarization':
      return list[0];
    case 'question-answering':
      return Array.isArray(body) ? body[0] : body;
    default:
      return body;
  }
}

/** One replay through the raw client, pointed at the stub under the recorded path. */
async function replayWithClient(stub: StubHf, p: PlannedTape): Promise<unknown> {
  const client = new InferenceClient(undefined, {
    endpointUrl: `${stub.url}${p.path}`,
    retry_on_error: false,
  });
  const { options: _legacy, model: sentModel, stream, ...args } = p.body ?? {};
  const inputs = args.inputs;
  const parameters = args.parameters as Record<string, unknown> | undefined;
  type Args<K extends keyof InferenceClient> = InferenceClient[K] extends (a: infer A) => unknown
    ? A
    : never;
  switch (p.task) {
    case 'text-classification':
      return client.textClassification({ inputs, parameters } as Args<'textClassification'>);
    case 'translation':
      return client.translation({ inputs, parameters } as Args<'translation'>);
    case 'summarization':
      return client.summarization({ inputs, parameters } as Args<'summarization'>);
    case 'fill-mask':
      return client.fillMask({ inputs, parameters } as Args<'fillMask'>);
    case 'question-answering':
      return client.questionAnswering({ inputs, parameters } as Args<'questionAnswering'>);
    case 'conversational': {
      // The client always names a model in a chat body; tapes without one named the URL's.
      const chat = { ...args, model: (sentModel as string | undefined) ?? p.model };
      if (!stream) return client.chatCompletion(chat as Args<'chatCompletion'>);
      const chunks: unknown[] = [];
      for await (const chunk of client.chatCompletionStream(chat as Args<'chatCompletion'>)) {
        chunks.push(chunk);
      }
      return { streamed: chunks };
    }
    default:
      throw new Error(`no client replay for ${p.task}`);
  }
}

describe.skipIf(!present)('HF tapes through the @huggingface/inference client', () => {
  let stub: StubHf;
  beforeAll(async () => {
    stub = await startStubHuggingFace({ tapes: TAPES, normalizeBody: forgiveLegacyFields });
  });
  afterAll(async () => {
    await stub?.close();
  });

  it('has tapes to replay', () => {
    expect(REPLAYABLE.length).toBeGreaterThan(0);
  });

  it.each(REPLAYABLE.map((p) => [`${p.task} ${p.model} ${p.key.slice(0, 10)}`, p] as const))(
    '%s',
    async (_name, p) => {
      const { status } = p.tape.response;
      const outcome = await replayWithClient(stub, p).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      // The stub answered with this very tape: what the client sent matched the recording.
      expect(stub.requests.at(-1)?.tape).toBe(p.key);
      if (status < 400) {
        if (!outcome.ok) throw outcome.error;
        const isStream = p.body?.stream === true;
        const expected = isStream
          ? { streamed: sseEvents(p.tape.response.body) }
          : clientView(p.task, parseBody(p.tape));
        expect(outcome.value).toEqual(expected);
      } else {
        expect(outcome.ok).toBe(false);
        const error = (outcome as { error: unknown }).error;
        expect(error).toBeInstanceOf(InferenceClientProviderApiError);
        expect((error as InferenceClientProviderApiError).httpResponse.status).toBe(status);
        const said = recordedError(p.tape);
        if (said) expect((error as Error).message).toContain(said);
      }
      bump(replayed, p.task);
    },
  );
});

/** Our expert task and request for a replayable tape, when its inputs fit the catalogue. */
function expertRequest(p: PlannedTape): ExpertRequest | undefined {
  const inputs = p.body?.inputs;
  const parameters = p.body?.parameters as Record<string, unknown> | undefined;
  const base = { model: p.model, ...(parameters ? { parameters } : {}) };
  switch (p.task) {
    case 'translation':
    case 'summarization':
    case 'fill-mask':
    case 'text-classification':
      // One text per request: batched tapes (a list of inputs) have no expert equivalent.
      return typeof inputs === 'string'
        ? { ...base, task: p.task, inputs: { text: inputs } }
        : undefined;
    case 'question-answering': {
      const { question, context } = (inputs ?? {}) as Record<string, unknown>;
      return typeof question === 'string' && typeof context === 'string'
        ? { ...base, task: 'question-answering', inputs: { question, context } }
        : undefined;
    }
    default:
      return undefined;
  }
}

const sortLabels = (labels: LabelValue[]) => [...labels].sort((a, b) => b.score - a.score);

/** The expert output the recorded answer stands for. */
function expertView(task: ExpertTask, body: unknown): unknown {
  const list = body as Array<Record<string, unknown>>;
  switch (task) {
    case 'translation':
      return list[0]?.translation_text;
    case 'summarization':
      return list[0]?.summary_text;
    case 'fill-mask':
      return [...list].sort((a, b) => (b.score as number) - (a.score as number))[0]?.sequence;
    case 'question-answering':
      return (Array.isArray(body) ? list[0] : (body as Record<string, unknown>))?.answer;
    case 'text-classification':
      return sortLabels((body as LabelValue[][])[0] ?? []);
    case 'image-classification':
      return sortLabels(body as LabelValue[]).map(({ label, score }) => ({ label, score }));
    case 'object-detection':
      return sortLabels(body as LabelValue[]).map(({ label, score, box }) => ({
        label,
        score,
        box,
      }));
    case 'automatic-speech-recognition':
      return (body as Record<string, unknown>).text;
    case 'visual-question-answering':
    case 'image-to-text':
      return list[0]?.[task === 'image-to-text' ? 'generated_text' : 'answer'];
    default:
      throw new Error(`no expert view for ${task}`);
  }
}

const PROVIDER_PLAN = REPLAYABLE.flatMap((p) => {
  const request = expertRequest(p);
  return request ? [{ p, request }] : [];
});

describe.skipIf(!present)('HF tapes through the expert provider', () => {
  let stub: StubHf;
  beforeAll(async () => {
    stub = await startStubHuggingFace({ tapes: TAPES, normalizeBody: forgiveLegacyFields });
  });
  afterAll(async () => {
    await stub?.close();
  });

  it('covers translation and summarization', () => {
    const tasks = new Set(PROVIDER_PLAN.map(({ request }) => request.task));
    expect(tasks).toContain('translation');
    expect(tasks).toContain('summarization');
  });

  it.each(
    PROVIDER_PLAN.map(
      ({ p, request }) => [`${request.task} ${p.model} ${p.key.slice(0, 10)}`, p, request] as const,
    ),
  )('%s', async (_name, p, request) => {
    // The model goes into the URL, so the stub checks it against the recorded one.
    const provider = createHuggingFaceExpertProvider({
      id: 'tapes',
      endpointUrl: `${stub.url}/hf-inference/models/{model}`,
    });
    const { status } = p.tape.response;
    const outcome = await provider.run(request, { signal: new AbortController().signal }).then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    expect(stub.requests.at(-1)?.tape).toBe(p.key);
    if (status < 400) {
      if (!outcome.ok) throw outcome.error;
      expect(outcome.result).toEqual({
        output: expertView(request.task, parseBody(p.tape)),
        model: p.model,
        source: 'live',
      });
    } else {
      expect(outcome.ok).toBe(false);
      const error = (outcome as { error: unknown }).error as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.status).toBe(status);
      if (status === 404) expect(error.message).toContain(`model "${p.model}" not found`);
    }
    bump(viaProvider, request.task);
  });
});

/**
 * Tapes whose request was an image or a sound are not in the subset with their bytes, so they
 * cannot be replayed. Their recorded answers are still real: here the stub hands each one back to
 * whatever we send, and the check is only that our provider reads a real answer right.
 */
const ANSWER_ONLY = PLANNED.filter(
  (p) =>
    p.skip?.startsWith('binary request body') &&
    [
      'visual-question-answering',
      'image-classification',
      'object-detection',
      'image-to-text',
      'automatic-speech-recognition',
    ].includes(p.task),
);

describe.skipIf(!present)(
  'recorded answers to image and audio requests, read by the expert provider',
  () => {
    let png: Buffer;
    beforeAll(async () => {
      png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#f00' } })
        .png()
        .toBuffer();
    });

    it.each(ANSWER_ONLY.map((p) => [`${p.task} ${p.model} ${p.key.slice(0, 10)}`, p] as const))(
      '%s (answer only, request not replayed)',
      async (_name, p) => {
        const { response } = p.tape;
        const stub = await startStubHuggingFace({
          respond: () => ({
            status: response.status,
            headers: response.headers,
            body: response.body,
          }),
        });
        try {
          const provider = createHuggingFaceExpertProvider({
            id: 'answers',
            endpointUrl: stub.url,
          });
          const task = p.task as ExpertTask;
          const image = { bytes: new Uint8Array(png), mime: 'image/png' };
          // Stand-in bytes: the recorded request's own were not kept.
          const audio = { bytes: new Uint8Array(Buffer.from('fLaC')), mime: 'audio/flac' };
          const inputs: ExpertRequest['inputs'] =
            task === 'visual-question-answering'
              ? { image, question: 'How many cats are lying down?' }
              : task === 'automatic-speech-recognition'
                ? { audio }
                : { image };
          const result = await provider.run(
            { task, model: p.model, inputs },
            { signal: new AbortController().signal },
          );
          expect(result.output).toEqual(expertView(task, parseBody(p.tape)));
          bump(responseOnly, p.task);
        } finally {
          await stub.close();
        }
      },
    );
  },
);

afterAll(() => {
  if (!present) return;
  const byTask = new Map<string, { total: number; reasons: Map<string, number> }>();
  for (const p of PLANNED) {
    const entry = byTask.get(p.task) ?? { total: 0, reasons: new Map() };
    entry.total++;
    if (p.skip) entry.reasons.set(p.skip, (entry.reasons.get(p.skip) ?? 0) + 1);
    byTask.set(p.task, entry);
  }
  const lines = [...byTask.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([task, { total, reasons }]) => {
      const notes = [...reasons.entries()].map(([why, n]) => `${n} not replayed: ${why}`);
      const extra = [
        replayed.get(task) ? `${replayed.get(task)} replayed through the client` : '',
        viaProvider.get(task) ? `${viaProvider.get(task)} through the expert provider` : '',
        responseOnly.get(task) ? `${responseOnly.get(task)} answers read by the provider` : '',
      ].filter(Boolean);
      return `  ${task}: ${total} tapes; ${[...extra, ...notes].join('; ') || 'none replayed'}`;
    });
  const totalReplayed = [...replayed.values()].reduce((a, b) => a + b, 0);
  console.log(
    `hf-tapes: ${totalReplayed} of ${PLANNED.length} tapes replayed through the client\n${lines.join('\n')}\n` +
      '  feature-extraction: 0 tapes in the subset (its sentence-transformers tapes are sentence-similarity)',
  );
});
