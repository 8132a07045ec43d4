/**
 * A request's inputs and parameters as the Hugging Face client takes them. Each is checked before
 * anything is sent, so a missing or mistyped input fails at once, naming the task and the input.
 */
import type { BinaryValue, ExpertRequest } from '../../providers/expert-types.ts';
import { isBinaryValue } from '../../providers/expert-types.ts';
import { ProviderError } from '../../providers/types.ts';

/** A failure that the caller made, which no retry can fix. */
export function invalidRequest(message: string): ProviderError {
  return new ProviderError(message, { retryable: false, code: 'invalid_request' });
}

function missingInput(request: ExpertRequest, name: string, what: string): ProviderError {
  const given = Object.keys(request.inputs);
  const list = given.length > 0 ? given.join(', ') : 'none';
  return invalidRequest(
    `${request.task} needs the input "${name}" (${what}); inputs given: ${list}`,
  );
}

export function textInput(request: ExpertRequest, name: string): string {
  const value = request.inputs[name];
  if (value === undefined) throw missingInput(request, name, 'text');
  if (typeof value !== 'string') {
    throw invalidRequest(`${request.task} input "${name}" must be text, got ${value.mime} bytes`);
  }
  return value;
}

export function optionalTextInput(request: ExpertRequest, name: string): string | undefined {
  return request.inputs[name] === undefined ? undefined : textInput(request, name);
}

/** Bytes from a `data:` URL, for a caller who hands an image over as text. */
function fromDataUrl(url: string): BinaryValue | undefined {
  const match = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
  if (!match) return undefined;
  const [, mime, base64, payload = ''] = match;
  try {
    const bytes = base64
      ? Buffer.from(payload, 'base64')
      : Buffer.from(decodeURIComponent(payload), 'utf8');
    return { bytes: new Uint8Array(bytes), mime: mime || 'application/octet-stream' };
  } catch {
    return undefined;
  }
}

export function binaryInput(request: ExpertRequest, name: string, kind: 'image' | 'audio'): Blob {
  const value = request.inputs[name];
  if (value === undefined) throw missingInput(request, name, `${kind} bytes`);
  const binary = typeof value === 'string' ? fromDataUrl(value) : value;
  if (!isBinaryValue(binary)) {
    throw invalidRequest(
      `${request.task} input "${name}" must be ${kind} bytes (or a data: URL), got text`,
    );
  }
  return new Blob([binary.bytes as Uint8Array<ArrayBuffer>], { type: binary.mime });
}

export function parametersOf(request: ExpertRequest): Record<string, unknown> | undefined {
  const parameters = request.parameters;
  return parameters && Object.keys(parameters).length > 0 ? { ...parameters } : undefined;
}

/**
 * Feature extraction's own switch, never sent to the server: `pooling: 'mean'` (the default)
 * mean-pools per-token vectors into one; `pooling: 'none'` keeps them, for token-level metrics
 * such as BERTScore. The other parameters go to the server unchanged.
 */
export function poolingOf(request: ExpertRequest): 'mean' | 'none' {
  const pooling = request.parameters?.pooling;
  if (pooling === undefined || pooling === 'mean') return 'mean';
  if (pooling === 'none') return 'none';
  throw invalidRequest(
    `feature-extraction parameter "pooling" must be "mean" or "none", got ${JSON.stringify(pooling)}`,
  );
}

export function serverParameters(request: ExpertRequest): Record<string, unknown> | undefined {
  const parameters = parametersOf(request);
  if (parameters) delete parameters.pooling;
  return parameters && Object.keys(parameters).length > 0 ? parameters : undefined;
}
