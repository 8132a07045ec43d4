/**
 * What Hugging Face servers answer, read into an expert's output: texts, labels best first,
 * vectors, bytes with their MIME type. Servers differ in the shapes they send for one task; each
 * reader accepts the shapes seen in practice and reports anything else as a bad response.
 */
import type {
  BinaryValue,
  EntityValue,
  ExpertRequest,
  LabelValue,
} from '../../providers/expert-types.ts';
import { ProviderError } from '../../providers/types.ts';
import { sniffMime } from '../../schema/mime.ts';
import { meanPool } from '../vectors.ts';

/** What a binary output is called when the server does not say and the bytes do not tell. */
export const DEFAULT_IMAGE_MIME = 'image/png';
export const DEFAULT_AUDIO_MIME = 'audio/flac';

/** The server answered 2xx with something we cannot read as the task's output. */
export function badResponse(request: ExpertRequest, detail: string): ProviderError {
  return new ProviderError(
    `${request.task} response from model "${request.model}" is not what the task returns: ${detail}`,
    { retryable: false, code: 'bad_response' },
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The string under `key` in the answer (or in its first element, for list answers). */
export function textField(request: ExpertRequest, value: unknown, key: string): string {
  const first = Array.isArray(value) ? value[0] : value;
  if (isRecord(first) && typeof first[key] === 'string') return first[key];
  throw badResponse(request, `expected an object with a string "${key}"`);
}

/** Classes (and boxes, for detectors) sorted best first. */
export function toLabels(request: ExpertRequest, value: unknown, withBox: boolean): LabelValue[] {
  // Some servers wrap one input's classes in an outer list: [[{label, score}, ...]].
  const list =
    Array.isArray(value) && value.length === 1 && Array.isArray(value[0]) ? value[0] : value;
  if (!Array.isArray(list)) throw badResponse(request, 'expected a list of labels');
  const labels = list.map((item): LabelValue => {
    if (!isRecord(item) || typeof item.label !== 'string' || typeof item.score !== 'number') {
      throw badResponse(request, 'expected {label, score} items');
    }
    const label: LabelValue = { label: item.label, score: item.score };
    if (withBox && isRecord(item.box)) {
      const { xmin, ymin, xmax, ymax } = item.box;
      if ([xmin, ymin, xmax, ymax].every((n) => typeof n === 'number')) {
        label.box = {
          xmin: xmin as number,
          ymin: ymin as number,
          xmax: xmax as number,
          ymax: ymax as number,
        };
      }
    }
    return label;
  });
  return labels.sort((a, b) => b.score - a.score);
}

function isNumberList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((n) => typeof n === 'number');
}

/**
 * One vector for one text. Servers answer feature extraction in several shapes: a vector (the
 * model pools for itself), one row holding the vector (`[[...]]`), or one vector per token
 * (`[[...], [...], ...]`, for models with no pooling of their own), possibly inside a batch of
 * one (`[[[...], ...]]`). Per-token vectors are mean-pooled here into one vector, the usual
 * sentence embedding, so an expert's output is always a single `number[]`.
 */
export function toVector(value: unknown): number[] | undefined {
  if (typeof value === 'number') return [value];
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (isNumberList(value)) return value;
  if (value.length === 1 && Array.isArray(value[0]) && !isNumberList(value[0])) {
    return toVector(value[0]);
  }
  if (!value.every(isNumberList)) return undefined;
  const rows = value as number[][];
  const width = rows[0]?.length ?? 0;
  if (rows.some((row) => row.length !== width)) return undefined;
  return meanPool(rows);
}

/**
 * One vector per token, when the server sent them: `[[...], ...]`, possibly inside a batch of
 * one. Undefined for a single pooled vector (the server pooled for itself) or a ragged answer.
 */
export function toTokenVectors(value: unknown): number[][] | undefined {
  if (!Array.isArray(value) || value.length === 0 || isNumberList(value)) return undefined;
  if (value.length === 1 && Array.isArray(value[0]) && !isNumberList(value[0])) {
    return toTokenVectors(value[0]);
  }
  if (!value.every(isNumberList)) return undefined;
  const rows = value as number[][];
  const width = rows[0]?.length ?? 0;
  return width > 0 && rows.every((row) => row.length === width) ? rows : undefined;
}

/** Fill-mask: the sequence of the best-scored candidate, whatever order the server used. */
export function bestSequence(request: ExpertRequest, value: unknown): string {
  if (!Array.isArray(value) || value.length === 0) {
    throw badResponse(request, 'expected a non-empty list of candidates');
  }
  let best: { sequence: string; score: number } | undefined;
  for (const candidate of value) {
    if (!isRecord(candidate) || typeof candidate.sequence !== 'string') continue;
    const score = typeof candidate.score === 'number' ? candidate.score : -Infinity;
    if (!best || score > best.score) best = { sequence: candidate.sequence, score };
  }
  if (!best) throw badResponse(request, 'expected candidates with a string "sequence"');
  return best.sequence;
}

/**
 * Bytes with their MIME type: the type the server declared, else what the bytes look like,
 * else the task's usual format.
 */
export async function toBinary(
  request: ExpertRequest,
  value: unknown,
  fallbackMime: string,
): Promise<BinaryValue> {
  if (!(value instanceof Blob)) throw badResponse(request, 'expected binary content');
  const bytes = new Uint8Array(await value.arrayBuffer());
  const declared = value.type.split(';')[0]?.trim().toLowerCase() ?? '';
  const mime =
    declared && declared !== 'application/octet-stream'
      ? declared
      : (sniffMime(bytes) ?? fallbackMime);
  return { bytes, mime };
}

/**
 * Named entities in text order. With an aggregation strategy servers answer grouped entities
 * (`entity_group`, as `dslim/bert-base-NER` on hf-inference does); without one, one item per
 * token with an IOB tag (`entity: "B-PER"`, `"I-PER"`): those are grouped here, a token that
 * continues the previous entity (an `I-` tag of the same type, or a `##` word piece) joining it
 * with the mean score, so both shapes give the same kind of list.
 */
export function toEntities(request: ExpertRequest, value: unknown): EntityValue[] {
  // Some servers wrap one input's entities in an outer list.
  const list =
    Array.isArray(value) && value.length === 1 && Array.isArray(value[0]) ? value[0] : value;
  if (!Array.isArray(list)) throw badResponse(request, 'expected a list of entities');
  const entities: Array<EntityValue & { parts: number }> = [];
  for (const item of list) {
    const tag = isRecord(item) ? (item.entity_group ?? item.entity) : undefined;
    if (
      !isRecord(item) ||
      typeof tag !== 'string' ||
      typeof item.word !== 'string' ||
      typeof item.score !== 'number'
    ) {
      throw badResponse(request, 'expected {entity_group or entity, word, score} items');
    }
    const start = typeof item.start === 'number' ? item.start : -1;
    const end = typeof item.end === 'number' ? item.end : -1;
    const iob = /^([BI])-(.+)$/.exec(tag);
    const type = iob ? iob[2]! : tag;
    const previous = entities.at(-1);
    const piece = item.word.startsWith('##');
    if (previous && previous.type === type && (iob?.[1] === 'I' || piece)) {
      const gap = start >= 0 && previous.end >= 0 && start > previous.end ? ' ' : '';
      previous.word += piece ? item.word.slice(2) : `${gap}${item.word}`;
      previous.score = (previous.score * previous.parts + item.score) / (previous.parts + 1);
      previous.parts += 1;
      previous.end = end;
      continue;
    }
    entities.push({ word: item.word, type, score: item.score, start, end, parts: 1 });
  }
  return entities.map(({ parts: _, ...entity }) => entity);
}
