/**
 * A run's inputs from a `multipart/form-data` body, as `curl -F` and browsers' forms send them:
 * a file part per file input (named after it), a plain field per other input, and/or one
 * `inputs` part holding JSON values by name. Parsed by Node's own fetch (undici's `formData()`),
 * fed through a counter that stops at the request size cap (413) however the body is sent.
 */
import type { IncomingMessage } from 'node:http';
import { API_VALUES, type RunValuePolicy, UploadedFile } from '../runtime/run-values.ts';
import { HttpError } from './errors.ts';

/** A form's plain fields are text: numbers, true/false and JSON are read from it. */
export const FORM_VALUES: RunValuePolicy = { ...API_VALUES, fromText: true };

/** True when the request's body is a multipart form. */
export function isMultipart(req: IncomingMessage): boolean {
  return /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');
}

/**
 * The form's values by input name: files as `UploadedFile`s, fields as text, the `inputs`
 * part's JSON values as they are. Throws a 413 past `max` bytes, a 400 naming the part
 * otherwise.
 */
export async function readForm(
  req: IncomingMessage,
  max: number,
): Promise<Record<string, unknown>> {
  const tooLarge = () => new HttpError(413, `the request body is larger than ${max} bytes`, 'body');
  if (Number(req.headers['content-length'] ?? 0) > max) throw tooLarge();
  let size = 0;
  async function* capped(): AsyncGenerator<Uint8Array> {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > max) throw tooLarge();
      yield chunk as Buffer;
    }
  }
  let form: FormData;
  try {
    form = await new Request('http://server/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: ReadableStream.from(capped()),
      duplex: 'half',
    } as RequestInit).formData();
  } catch {
    if (size > max) throw tooLarge();
    throw new HttpError(400, 'the request body is not a readable multipart/form-data form', 'body');
  }
  const values: Record<string, unknown> = {};
  const given = (name: string, field: string) => {
    if (Object.hasOwn(values, name))
      throw new HttpError(400, `"${name}" is given more than once`, field);
  };
  for (const [name, part] of form) {
    if (name === 'inputs') {
      for (const [key, value] of Object.entries(jsonPart(part))) {
        given(key, `inputs.${key}`);
        values[key] = value;
      }
      continue;
    }
    given(name, `inputs.${name}`);
    values[name] =
      typeof part === 'string'
        ? part
        : new UploadedFile(new Uint8Array(await part.arrayBuffer()), part.type, part.name);
  }
  return values;
}

function jsonPart(part: string | File): Record<string, unknown> {
  if (typeof part !== 'string')
    throw new HttpError(400, 'the "inputs" part is JSON text, not a file', 'inputs');
  let value: unknown;
  try {
    value = JSON.parse(part);
  } catch {
    throw new HttpError(400, 'the "inputs" part is not JSON', 'inputs');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new HttpError(
      400,
      'the "inputs" part is a JSON object of values by input name',
      'inputs',
    );
  return value as Record<string, unknown>;
}
