/**
 * What keeps a template data and every render small. A document is shared like any other file,
 * so its templates must never read the user's files, and no template may take the process's
 * time or memory: liquidjs gets a file system that refuses everything, the tags that would use
 * it are refused when a template is parsed, and each render carries its own budget of time,
 * output, loop passes and size of any value it builds along the way.
 *
 * Browser-safe: the editor parses templates with the same engine to find their slots.
 */
import {
  Context,
  Drop,
  type Emitter,
  evalToken,
  ForTag,
  type FS,
  type Liquid,
  type LiquidOptions,
  TablerowTag,
  TypeGuards,
  type ValueToken,
} from 'liquidjs';
import type { RunLimits } from '../schema/limits.ts';

/** The limits of one render: a run's, from `settings.limits` (app/schema/limits.ts). */
export type TemplateLimits = Pick<RunLimits, 'templateMs' | 'templateBytes' | 'templateIterations'>;

/** A template that cannot be parsed or rendered; the message is one line. */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** A template uses a tag a shared document may not use. */
export class TemplateRefusedError extends TemplateError {
  constructor(tag: string) {
    super(`templates cannot include other files ({% ${tag} %})`);
    this.name = 'TemplateRefusedError';
  }
}

/** The template limits a render can go past. */
export type TemplateLimit = 'templateMs' | 'templateBytes' | 'templateIterations';

/** A render went past one of its limits; `value` is the limit it had. */
export class TemplateLimitError extends TemplateError {
  readonly limit: TemplateLimit;
  readonly value: number;
  /** What happened, without the setting: "went past the 2,000 ms render limit". */
  readonly what: string;
  constructor(limit: TemplateLimit, value: number, what: string) {
    super(`${what} (settings.limits.${limit})`);
    this.name = 'TemplateLimitError';
    this.limit = limit;
    this.value = value;
    this.what = what;
  }
}

/** The error a render that ran out of time fails with, wherever the clock was read. */
export function timeLimitError(ms: number): TemplateLimitError {
  return new TemplateLimitError('templateMs', ms, `went past the ${count(ms)} ms render limit`);
}

/** Tags that read other templates from a file system; a shared document may use none of them. */
const FILE_TAGS = ['include', 'render', 'layout'] as const;

const refuse = (): never => {
  throw new Error('templates cannot read files');
};

/**
 * A file system with nothing in it. Tags that read files are refused when a template is parsed;
 * this is what answers if one ever reaches the loader anyway.
 */
const NO_FILES: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async () => refuse(),
  readFileSync: () => refuse(),
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false,
  dirname: () => '',
  sep: '/',
};

/** The liquidjs options that leave an engine no file to read. */
export const NO_FILE_OPTIONS: LiquidOptions = {
  fs: NO_FILES,
  root: [],
  partials: [],
  layouts: [],
  relativeReference: false,
  dynamicPartials: false,
};

/**
 * Refuses the file tags, and teaches the engine to respect a render's bounds: every pass through
 * a block (each loop iteration, each branch taken) counts, every text written is measured, and a
 * loop over a range is checked before the range is built.
 */
export function bound(engine: Liquid): void {
  for (const tag of FILE_TAGS) {
    engine.registerTag(tag, {
      // Parsing goes on, so the template's slots (its ports) are still known and the refusal
      // is its only problem; see `noteRefusals`.
      parse() {
        refusedWhileParsing?.push(tag);
      },
      render() {
        throw new TemplateRefusedError(tag);
      },
    });
  }
  engine.registerTag(
    'for',
    class extends ForTag {
      override *render(ctx: Context, emitter: Emitter): ReturnType<ForTag['render']> {
        yield* checkRange(this.collection, ctx);
        return yield* super.render(ctx, emitter);
      }
    },
  );
  engine.registerTag(
    'tablerow',
    class extends TablerowTag {
      override *render(ctx: Context, emitter: Emitter): ReturnType<TablerowTag['render']> {
        yield* checkRange(this.collection, ctx);
        yield* super.render(ctx, emitter);
      }
    },
  );
  const renderer = engine.renderer;
  const renderBlock = renderer.renderTemplates.bind(renderer);
  renderer.renderTemplates = function* (templates, ctx, emitter) {
    if (ctx instanceof BoundedContext) {
      ctx.pass();
      // `capture` renders into a text of its own: it is bounded like the output.
      emitter ??= new BoundedEmitter(ctx.limits.templateBytes);
    }
    return yield* renderBlock(templates, ctx, emitter);
  };
}

let refusedWhileParsing: string[] | undefined;

/** Runs a parse and answers what it parsed with the refused tags it met, in order. */
export function noteRefusals<T>(parse: () => T): { parsed: T; refused: string[] } {
  const outer = refusedWhileParsing;
  const refused: string[] = [];
  refusedWhileParsing = refused;
  try {
    return { parsed: parse(), refused };
  } finally {
    refusedWhileParsing = outer;
  }
}

/** A loop over `(a..b)` with more items than passes left fails before the range is built. */
function* checkRange(collection: unknown, ctx: Context): Generator<unknown, void, unknown> {
  if (!(ctx instanceof BoundedContext) || !TypeGuards.isRangeToken(collection)) return;
  const low = Number(yield evalToken((collection as { lhs: ValueToken }).lhs, ctx));
  const high = Number(yield evalToken((collection as { rhs: ValueToken }).rhs, ctx));
  if (high - low + 1 > ctx.passesLeft) throw ctx.iterationError();
}

/**
 * The state of one render: its deadline, the passes it has made and its limits. liquidjs asks a
 * context's `renderLimit` for the time at every block and its `memoryLimit` for the size of every
 * range and filtered text it builds; both answer from here.
 */
export class BoundedContext extends Context {
  readonly limits: TemplateLimits;
  #passes = 0;
  constructor(scope: object, engine: Liquid, limits: TemplateLimits, sync: boolean) {
    const deadline = performance.now() + limits.templateMs;
    const largest = valueCap(limits);
    super(
      scope,
      engine.options,
      { sync },
      {
        liquid: engine,
        renderLimit: limiter({
          check: (now) => {
            if (now > deadline) throw timeLimitError(limits.templateMs);
          },
        }),
        memoryLimit: limiter({
          use: (size) => {
            if (size > largest) {
              throw new TemplateLimitError(
                'templateBytes',
                limits.templateBytes,
                `built a range or text of more than ${count(largest)} items along the way`,
              );
            }
          },
        }),
      },
    );
    this.limits = limits;
  }

  /** Counts one pass through a block. */
  pass(): void {
    this.#passes++;
    if (this.#passes > this.limits.templateIterations + 1) throw this.iterationError();
  }

  get passesLeft(): number {
    return this.limits.templateIterations + 1 - this.#passes;
  }

  iterationError(): TemplateLimitError {
    const n = this.limits.templateIterations;
    return new TemplateLimitError(
      'templateIterations',
      n,
      `went past the ${count(n)}-iteration loop limit`,
    );
  }
}

/**
 * The largest single value (range or text) a render may build on the way to its output. Several
 * times the output limit, so filters that build and then trim still work; a range as long as
 * this would be an array of tens of megabytes.
 */
function valueCap(limits: TemplateLimits): number {
  return 4 * limits.templateBytes;
}

/** liquidjs's Limiter has private fields; ours is the same shape from the outside. */
function limiter(impl: { use?: (n: number) => void; check?: (n: number) => void }) {
  const nothing = () => {};
  return {
    use: impl.use ?? nothing,
    check: impl.check ?? nothing,
  } as unknown as Context['memoryLimit'];
}

/**
 * Collects a render's text and stops it once the text is longer than the output limit allows
 * (UTF-16 units never outnumber UTF-8 bytes, so this never stops a render that fits; the exact
 * byte count is checked at the end).
 */
export class BoundedEmitter implements Emitter {
  buffer = '';
  readonly #bytes: number;
  constructor(bytes: number) {
    this.#bytes = bytes;
  }
  write(html: unknown): void {
    this.buffer += text(html);
    if (this.buffer.length > this.#bytes) throw outputError(this.#bytes);
  }
}

/** The text a finished render produced, once its size in bytes is known to fit. */
export function checkedOutput(out: string, bytes: number): string {
  // A UTF-16 unit is at most three UTF-8 bytes: most texts need no counting.
  if (out.length * 3 <= bytes) return out;
  if (out.length > bytes || new TextEncoder().encode(out).length > bytes) throw outputError(bytes);
  return out;
}

function outputError(bytes: number): TemplateLimitError {
  return new TemplateLimitError(
    'templateBytes',
    bytes,
    `produced more than ${count(bytes)} bytes of text`,
  );
}

/** What liquidjs writes for a value: drops by their value, arrays joined, nothing for nil. */
function text(value: unknown): string {
  const v = value instanceof Drop ? value.valueOf() : value;
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(text).join('');
  return String(v);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
