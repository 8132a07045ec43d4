/**
 * Expert calls as cassettes and run records keep them: the request with its bytes reduced to
 * content hashes (so the key depends on the picture, not on its encoding), and the answer with
 * any bytes it returned stored once as a blob and referenced by hash.
 */
import { canonicalJson, sha256Hex } from './canonical.ts';
import {
  type BinaryValue,
  type EntityValue,
  type ExpertOutputValue,
  type ExpertRequest,
  type ExpertResult,
  type ExpertTask,
  isBinaryValue,
  type LabelValue,
} from './expert-types.ts';

/** Bytes as a request keeps them: their hash and MIME type. */
export interface HashedBytes {
  sha256: string;
  mime: string;
}

export interface NormalizedExpertRequest {
  kind: 'expert';
  task: ExpertTask;
  model: string;
  inputs: Record<string, string | HashedBytes>;
  parameters?: Record<string, unknown>;
}

/** An answer's bytes, stored once as a blob. */
export interface BlobReference {
  $blob: string;
  mime: string;
}

export type RecordedExpertOutput =
  | string
  | BlobReference
  | LabelValue[]
  | EntityValue[]
  | number[]
  | number[][];

export interface RecordedExpertResponse {
  output: RecordedExpertOutput;
  model: string;
  simulated?: boolean;
}

export { sha256Hex };

/** True for a stored expert request (what tells expert calls from chat calls in a record). */
export function isExpertRequest(value: unknown): value is NormalizedExpertRequest {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'expert'
  );
}

/** The part of a request that decides its answer. Normalizing twice changes nothing. */
export function normalizeExpertRequest(
  request: ExpertRequest | NormalizedExpertRequest,
): NormalizedExpertRequest {
  const inputs: Record<string, string | HashedBytes> = {};
  for (const [name, value] of Object.entries(request.inputs)) {
    inputs[name] = isBinaryValue(value)
      ? { sha256: sha256Hex(value.bytes), mime: value.mime }
      : typeof value === 'string'
        ? value
        : { sha256: value.sha256, mime: value.mime };
  }
  const normalized: NormalizedExpertRequest = {
    kind: 'expert',
    task: request.task,
    model: request.model,
    inputs,
  };
  if (request.parameters && Object.keys(request.parameters).length > 0)
    normalized.parameters = request.parameters;
  return normalized;
}

/** The key of an expert request in cassettes and run records: sha256 of its canonical JSON. */
export function expertKey(request: ExpertRequest | NormalizedExpertRequest): string {
  return sha256Hex(canonicalJson(normalizeExpertRequest(request)));
}

/** The answer as recorded; `putBlob` keeps any bytes and returns their hash. */
export function toRecordedExpert(
  result: ExpertResult | RecordedExpertResponse,
  putBlob: (bytes: BinaryValue) => string,
): RecordedExpertResponse {
  const output = result.output as ExpertOutputValue | RecordedExpertOutput;
  const recorded: RecordedExpertResponse = {
    output: isBinaryValue(output) ? { $blob: putBlob(output), mime: output.mime } : output,
    model: result.model,
  };
  if (result.simulated) recorded.simulated = true;
  return recorded;
}

/** A recorded answer as the engine takes it, its bytes looked up by hash. */
export function fromRecordedExpert(
  recorded: RecordedExpertResponse,
  getBlob: (hash: string) => BinaryValue | undefined,
  source: ExpertResult['source'],
): ExpertResult {
  let output: ExpertOutputValue;
  const value = recorded.output;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const bytes = getBlob(value.$blob);
    if (!bytes)
      throw new Error(`the recorded answer's blob ${value.$blob.slice(0, 12)}… is missing`);
    output = { bytes: bytes.bytes, mime: value.mime };
  } else output = value;
  return {
    output,
    model: recorded.model,
    source,
    ...(recorded.simulated ? { simulated: true } : {}),
  };
}
