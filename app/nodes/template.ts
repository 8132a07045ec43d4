/**
 * Prompt and transform templates: Liquid syntax (`{{ question }}`, `{% for m in loop.transcript %}`),
 * rendered by liquidjs, which interprets templates and never evaluates JavaScript. A template's
 * root variables are its slots; nodes turn slots into input ports.
 */
import { Liquid } from 'liquidjs';

const engine = new Liquid({
  strictFilters: true,
  ownPropertyOnly: true,
  cache: 256,
});

/** `{{ answers | numbered }}` → "1. first\n2. second". */
engine.registerFilter('numbered', (value: unknown) =>
  toList(value)
    .map((v, i) => `${i + 1}. ${display(v)}`)
    .join('\n'),
);
/** `{{ options | lettered }}` → "(a) first (b) second", the NLSOM multiple-choice form. */
engine.registerFilter('lettered', (value: unknown) =>
  toList(value)
    .map((v, i) => `(${String.fromCharCode(97 + i)}) ${display(v)}`)
    .join(' '),
);

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** The root variables a template reads, in first-use order. Throws TemplateError on bad syntax. */
export function templateVariables(template: string): string[] {
  try {
    return engine.globalVariablesSync(engine.parse(template));
  } catch (error) {
    throw new TemplateError(firstLine((error as Error).message));
  }
}

/** The variables that become input ports: all roots minus names the runtime provides. */
export function templateSlots(template: string, provided: readonly string[] = []): string[] {
  const reserved = new Set([...RESERVED_VARIABLES, ...provided]);
  return templateVariables(template).filter((v) => !reserved.has(v));
}

/** Names every template can read without an input port. */
export const RESERVED_VARIABLES = ['loop', 'run', 'replica'] as const;

export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  try {
    return engine.parseAndRenderSync(template, prepare(vars) as Record<string, unknown>);
  } catch (error) {
    throw new TemplateError(firstLine((error as Error).message));
  }
}

/** Images render as a short marker rather than a data URL; everything else prints naturally. */
function prepare(value: unknown): unknown {
  if (isImageValue(value)) return `[image ${value.mime}]`;
  if (Array.isArray(value)) return value.map(prepare);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prepare(v)]));
  }
  return value;
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isImageValue(value)) return `[image ${value.mime}]`;
  return JSON.stringify(value);
}

function toList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** Images travel as content-addressed references; see app/runtime/blobs.ts. */
export interface ImageValue {
  $image: string;
  mime: string;
}

/** Other bytes (audio, a 3D asset) travel the same way, under `$blob`. */
export interface BlobValue {
  $blob: string;
  mime: string;
}

export function isBlobValue(value: unknown): value is BlobValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BlobValue).$blob === 'string' &&
    typeof (value as BlobValue).mime === 'string'
  );
}

/** The content hash a binary reference (an image or other bytes) points to, else undefined. */
export function blobHashOf(value: unknown): string | undefined {
  return isImageValue(value) ? value.$image : isBlobValue(value) ? value.$blob : undefined;
}

export function isImageValue(value: unknown): value is ImageValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ImageValue).$image === 'string' &&
    typeof (value as ImageValue).mime === 'string'
  );
}
