/**
 * Prompt and transform templates: Liquid syntax (`{{ question }}`, `{% for m in loop.transcript %}`),
 * rendered by liquidjs, which interprets templates and never evaluates JavaScript. A template's
 * root variables are its slots; nodes turn slots into input ports.
 *
 * Templates are data: the engine has no file system (a template with `{% include %}`,
 * `{% render %}` or `{% layout %}` is reported when its node is checked and never rendered) and
 * every render is bounded by the run's limits (app/node-sdk/template-bounds.ts). A run renders off
 * the event loop through app/runtime/template-pool.ts; this module renders on the caller's
 * thread.
 */
import { Liquid, type Template, toValueSync } from 'liquidjs';
import { isImageValue } from '../schema/blob-refs.ts';
import {
  BoundedContext,
  BoundedEmitter,
  bound,
  checkedOutput,
  NO_FILE_OPTIONS,
  noteRefusals,
  TemplateError,
  TemplateLimitError,
  type TemplateLimits,
  TemplateRefusedError,
} from './template-bounds.ts';

export { TemplateError, TemplateLimitError, type TemplateLimits, TemplateRefusedError };

const engine = new Liquid({
  strictFilters: true,
  ownPropertyOnly: true,
  ...NO_FILE_OPTIONS,
});
bound(engine);

/** `{{ answers | numbered }}` → "1. first\n2. second". */
engine.registerFilter('numbered', (value: unknown) =>
  toList(value)
    .map((v, i) => `${i + 1}. ${display(v)}`)
    .join('\n'),
);
/**
 * `{{ options | lettered }}` → "(a) first (b) second", the NLSOM multiple-choice form;
 * `lettered: "\n"` puts each option on its own line.
 */
engine.registerFilter('lettered', (value: unknown, separator: unknown = ' ') =>
  toList(value)
    .map((v, i) => `(${String.fromCharCode(97 + i)}) ${display(v)}`)
    .join(String(separator)),
);

/**
 * Each place a template reads a root variable: the variable it indexes it by (`scores[agent]`
 * gives `agent`), or undefined where it reads it whole or by a literal. Throws TemplateError on
 * bad syntax.
 */
export function templateIndexes(template: string, name: string): Array<string | undefined> {
  let globals: ReturnType<typeof engine.analyzeSync>['globals'];
  try {
    globals = engine.analyzeSync(parse(template).templates).globals;
  } catch (error) {
    throw templateError(error);
  }
  return (Object.hasOwn(globals, name) ? globals[name]! : []).map((use) => {
    const index = use.segments[1];
    return typeof index === 'object' &&
      index.segments.length === 1 &&
      typeof index.segments[0] === 'string'
      ? index.segments[0]
      : undefined;
  });
}

/**
 * The root variables a template reads, in first-use order. Throws TemplateError on bad syntax;
 * a template that uses a refused tag still has its variables (see `templateRefusal`).
 */
export function templateVariables(template: string): string[] {
  const parsed = parse(template);
  // Kept with the parse: a document's check and its ports both ask for every template's.
  if (!parsed.variables) {
    try {
      parsed.variables = engine.globalVariablesSync(parsed.templates);
    } catch (error) {
      throw templateError(error);
    }
  }
  return [...parsed.variables];
}

/**
 * Why a template may not be used as it is (`{% include %}` and the other tags that read
 * files), or undefined. Throws TemplateError on bad syntax.
 */
export function templateRefusal(template: string): TemplateRefusedError | undefined {
  const tag = parse(template).refused[0];
  return tag === undefined ? undefined : new TemplateRefusedError(tag);
}

/** The variables that become input ports: all roots minus names the runtime provides. */
export function templateSlots(template: string, provided: readonly string[] = []): string[] {
  const reserved = new Set([...RESERVED_VARIABLES, ...provided]);
  return templateVariables(template).filter((v) => !reserved.has(v));
}

/** Names every template can read without an input port (`params`: the template parameters). */
export const RESERVED_VARIABLES = ['loop', 'run', 'replica', 'params'] as const;

/**
 * Renders a template on this thread within `limits`; throws TemplateError (a TemplateLimitError
 * when it goes past one). liquidjs checks the clock at every block, so a render stops close to
 * its time limit, but only a worker can be stopped whatever it is doing: runs render through
 * app/runtime/template-pool.ts.
 */
export function renderTemplate(
  template: string,
  vars: Record<string, unknown>,
  limits: TemplateLimits,
): string {
  const parsed = parse(template);
  const { templates, refused } = parsed;
  if (refused[0] !== undefined) throw new TemplateRefusedError(refused[0]);
  parsed.plain ??= plainParts(template);
  const quick = parsed.plain && plainRender(parsed.plain, vars);
  if (typeof quick === 'string') return checkedOutput(quick, limits.templateBytes);
  const ctx = new BoundedContext(prepare(vars), engine, limits, true);
  const emitter = new BoundedEmitter(limits.templateBytes);
  try {
    toValueSync(engine.renderer.renderTemplates(templates, ctx, emitter));
  } catch (error) {
    throw templateError(error);
  }
  return checkedOutput(emitter.buffer, limits.templateBytes);
}

/**
 * Limits for renders on the caller's thread: a document being read (model names at validation,
 * prompts in estimates), and a run's first try at each template before it is handed to a
 * rendering thread (app/runtime/template-pool.ts). Small, because nothing else runs meanwhile;
 * real prompts render in hundredths of a millisecond, well within them.
 */
export const CALLER_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  templateMs: 20,
  templateBytes: 64 * 1024,
  templateIterations: 10_000,
});

/**
 * A renderer for one reading of a document: it renders within CALLER_LIMITS and answers
 * undefined (the caller then reads the template as written) for a template that fails, for one
 * that failed before, and for everything once the reading has spent its allowance: `slackMs`
 * plus `perRenderMs` for each render asked for. Real prompts render in a few hundredths of a
 * millisecond, so they never meet it; a document of slow templates costs its reader little more
 * than a document of fast ones.
 */
export function documentRenderer(
  slackMs = 250,
  perRenderMs = 0.5,
): (template: string, vars: Record<string, unknown>) => string | undefined {
  let left = slackMs;
  const failed = new Set<string>();
  return (template, vars) => {
    left += perRenderMs;
    if (left <= 0 || failed.has(template)) return undefined;
    const started = performance.now();
    try {
      return renderTemplate(template, vars, {
        ...CALLER_LIMITS,
        templateMs: Math.max(1, Math.min(CALLER_LIMITS.templateMs, left)),
      });
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      failed.add(template);
      return undefined;
    } finally {
      left -= performance.now() - started;
    }
  };
}

/**
 * One line for a node whose template failed, naming the field: "its prompt template went past
 * the 2,000 ms render limit (settings.limits.templateMs)".
 */
export function templateFailure(field: string, error: unknown): string {
  const its = field === 'template' ? 'its template' : `its ${field} template`;
  if (error instanceof TemplateLimitError) return `${its} ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `${its}: ${firstLine(message)}`;
}

interface Parsed {
  templates: Template[];
  /** Refused tags the template uses, in order. */
  refused: string[];
  /** Its root variables, once asked for. */
  variables?: string[];
  /** Its text and variables when it is only text and `{{ name }}`s (false when not), once rendered. */
  plain?: string[] | false;
}

/** `{{ name }}` with nothing but spaces around the name: the only tag a plain template has. */
const PLAIN_OUTPUT = /\{\{[ \t\r\n]*([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*\}\}/;
/** Names Liquid reads as literals, not variables: `{{ true }}` prints "true". */
const LITERALS = new Set(['true', 'false', 'nil', 'null', 'empty', 'blank']);

/**
 * A template of text and plain `{{ name }}` outputs as its parts, text and names alternating
 * (`"Hi {{ who }}!"` → `["Hi ", "who", "!"]`); false for anything else (a filter, a tag, a
 * path, whitespace control), which Liquid renders.
 */
function plainParts(template: string): string[] | false {
  const parts = template.split(new RegExp(PLAIN_OUTPUT.source, 'g'));
  for (let i = 0; i < parts.length; i += 2) {
    if (parts[i]!.includes('{{') || parts[i]!.includes('{%')) return false;
  }
  for (let i = 1; i < parts.length; i += 2) if (LITERALS.has(parts[i]!)) return false;
  return parts;
}

/**
 * A plain template rendered without Liquid, as Liquid would render it: a prompt is most often
 * text with a few variables, rendered for every replica and round. Undefined when a variable
 * holds anything but a string, a number, a boolean or nothing (Liquid then renders it).
 */
function plainRender(parts: string[], vars: Record<string, unknown>): string | undefined {
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!;
    // As Liquid reads it (ownPropertyOnly): a name the variables do not own prints nothing.
    const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (typeof value === 'string') out += value;
    else if (typeof value === 'number' || typeof value === 'boolean') out += String(value);
    else if (value !== undefined && value !== null) return undefined;
    out += parts[i + 1]!;
  }
  return out;
}

/** Parsed templates by text: a run renders the same prompt for every replica and round. */
const parsedCache = new Map<string, Parsed>();
const PARSED_KEPT = 4096;

function parse(template: string): Parsed {
  let parsed = parsedCache.get(template);
  if (!parsed) {
    try {
      const { parsed: templates, refused } = noteRefusals(() => engine.parse(template));
      parsed = { templates, refused };
    } catch (error) {
      throw templateError(error);
    }
    if (parsedCache.size >= PARSED_KEPT) parsedCache.delete(parsedCache.keys().next().value!);
    parsedCache.set(template, parsed);
  }
  return parsed;
}

/**
 * Our own errors come back from liquidjs wrapped (with the line and column); they are the
 * message. Anything else is liquidjs's or JavaScript's, reduced to its first line.
 */
function templateError(error: unknown): TemplateError {
  for (let e: unknown = error; e; e = (e as { originalError?: unknown }).originalError) {
    if (e instanceof TemplateError) return e;
  }
  return new TemplateError(firstLine(error instanceof Error ? error.message : String(error)));
}

/**
 * Images render as a short marker rather than a data URL; everything else prints naturally.
 * Most variables hold no image and only plain data: they are handed over as they are, since a
 * copy of every variable (a loop's transcript, a critic's 26 proposals) for every render was
 * most of what rendering allocated. Nothing in a render writes below the top level.
 */
function prepare(vars: Record<string, unknown>): Record<string, unknown> {
  if (needsCopy(vars, 0)) return prepareCopy(vars) as Record<string, unknown>;
  // The top level is still a copy of its own: `{% increment %}` writes into it.
  return { ...vars };
}

/**
 * How deep a plain value is read before it is copied anyway: a cycle must not hang the check, and
 * the copy's deep walk is what the render has always done.
 */
const SCAN_DEPTH = 64;

/** True when the value holds an image, or anything but plain objects, arrays and scalars. */
function needsCopy(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > SCAN_DEPTH || isImageValue(value)) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (needsCopy(item, depth + 1)) return true;
    return false;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return true;
  for (const key in value) {
    if (needsCopy((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function prepareCopy(value: unknown): unknown {
  if (isImageValue(value)) return `[image ${value.mime}]`;
  if (Array.isArray(value)) return value.map(prepareCopy);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prepareCopy(v)]));
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
