/**
 * Keeping keys out of everything written, printed or sent: events, the run store, cassettes,
 * exports, the terminal and the studio's page. Every key value the process could send is known
 * to one `Redactor`, and every path out of the process passes through it.
 */

/** Environment variables whose values are keys, whatever profile uses them. */
export const KEY_VARIABLES = [
  'OPENAI_API_KEY',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'ANTHROPIC_API_KEY',
] as const;

/**
 * Names that say a variable holds a credential (`LAB2_TOKEN`, `MY_API_KEY`, `VLLM_SECRET`). Their
 * values are redacted too, so a key stays hidden even when the provider that used it was removed
 * or was named only on another command's line.
 */
const KEY_LIKE_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/** Values shorter than this are not redacted: they would scrub ordinary words out of answers. */
export const MIN_SECRET_LENGTH = 8;

/** What takes a key's place. */
export const REDACTED = '[redacted]';

/**
 * The shortest piece of a key that is masked on its own. Text is clipped in many places (an
 * error quoting 80 characters of an answer, a progress line, a summary) and a clip can cut a key
 * in two; the piece left is no longer the whole key, so it is found by its 12-character runs.
 * Twelve characters of a random key are never ordinary text, and shorter than any real key.
 */
export const FRAGMENT_LENGTH = 12;

/** Entries in a redactor's table of hash flags (a power of two). */
const HASH_FLAGS = 1 << 16;

/** Characters a JSON number is made of. */
const NUMBER_LIKE = /^[0-9eE.+-]+$/;

/**
 * The key values present in `env`: the fixed key variables, any further variables named (stored
 * providers' and `--provider` key variables), and every variable whose name says it holds a
 * credential. Longest first, so a key that contains another is scrubbed whole.
 */
export function secretsIn(env: NodeJS.ProcessEnv, extraVariables: Iterable<string> = []): string[] {
  const names = new Set<string>([...KEY_VARIABLES, ...extraVariables]);
  for (const name of Object.keys(env)) if (KEY_LIKE_NAME.test(name)) names.add(name);
  const values: string[] = [];
  for (const name of names) {
    const value = name ? env[name]?.trim() : undefined;
    if (value) values.push(value);
  }
  return normalizeSecrets(values);
}

/** Deduplicated, long enough to redact safely, longest first. */
function normalizeSecrets(values: Iterable<string>): string[] {
  const kept = new Set<string>();
  for (const value of values) if (value.length >= MIN_SECRET_LENGTH) kept.add(value);
  return [...kept].sort((a, b) => b.length - a.length);
}

/**
 * The one place key values are scrubbed. Holds the values a process could send (it can be told
 * of more as keys are entered or providers added) and cleans any value, JSON text or streamed
 * text of them. A key inside JSON text is also found in its escaped form.
 */
export class Redactor {
  #secrets: string[] = [];
  /** Each secret as it appears in text and, where different, inside a JSON string. */
  #forms: string[] = [];
  #longest = 0;
  /** Every FRAGMENT_LENGTH-character run of every form, and their rolling hashes. */
  #fragments = new Set<string>();
  #fragmentHashes = new Set<number>();
  /**
   * The low bits of those hashes as a table of flags: looked up at every position of a text, it
   * answers "no piece here" for nearly all of them without the Set (a few times quicker).
   */
  #hashFlags = new Uint8Array(HASH_FLAGS);

  constructor(secrets: Iterable<string> = []) {
    this.set(secrets);
  }

  /** Replaces the known key values. */
  set(secrets: Iterable<string>): void {
    this.#secrets = normalizeSecrets(secrets);
    const forms = new Set<string>();
    for (const secret of this.#secrets) {
      forms.add(secret);
      forms.add(JSON.stringify(secret).slice(1, -1));
    }
    this.#forms = [...forms].sort((a, b) => b.length - a.length);
    this.#longest = this.#forms[0]?.length ?? 0;
    this.#fragments = new Set();
    this.#fragmentHashes = new Set();
    this.#hashFlags = new Uint8Array(HASH_FLAGS);
    for (const form of this.#forms) {
      for (let i = 0; i + FRAGMENT_LENGTH <= form.length; i++) {
        const run = form.slice(i, i + FRAGMENT_LENGTH);
        // A run that could be the digits of a number is left to the whole-key pass: masked in
        // serialised JSON it would break a number (a cost such as 0.30000000000000004).
        if (NUMBER_LIKE.test(run)) continue;
        this.#fragments.add(run);
        const hash = hashRun(run, 0);
        this.#fragmentHashes.add(hash);
        this.#hashFlags[hash & (HASH_FLAGS - 1)] = 1;
      }
    }
  }

  /** Adds key values to the known ones. */
  add(secrets: Iterable<string>): void {
    this.set([...this.#secrets, ...secrets]);
  }

  /** The key values known, longest first. */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** Whether `text` holds any known key, or a piece of one FRAGMENT_LENGTH characters long. */
  finds(text: string): boolean {
    return this.#forms.some((form) => text.includes(form)) || this.pieces(text, true).length > 0;
  }

  /**
   * `text` with every known key replaced by `[redacted]`, and then every piece of a key of
   * FRAGMENT_LENGTH characters or more (what a clip left of one) replaced the same way. So text
   * may be clipped anywhere before it reaches the redactor: what survives of a key is shorter
   * than FRAGMENT_LENGTH, at the clip's edge.
   */
  text(text: string): string {
    return this.fragments(this.wholeKeys(text));
  }

  /** `text` with every whole known key replaced by `[redacted]` (pieces are left). */
  wholeKeys(text: string): string {
    let clean = text;
    for (const form of this.#forms) {
      if (clean.includes(form)) clean = clean.split(form).join(REDACTED);
    }
    return clean;
  }

  /** `text` with every piece of a key FRAGMENT_LENGTH characters or longer replaced. */
  fragments(text: string): string {
    return masked(text, this.pieces(text));
  }

  /**
   * The stretches of `text` made of key pieces, merged, in order (only the first found, with
   * `firstOnly`): every FRAGMENT_LENGTH run is looked up by a rolling hash (one pass, no string
   * per position), and checked on a hit.
   */
  pieces(text: string, firstOnly = false): Array<[number, number]> {
    const spans: Array<[number, number]> = [];
    if (this.#fragments.size === 0 || text.length < FRAGMENT_LENGTH) return spans;
    const flags = this.#hashFlags;
    let hash = hashRun(text, 0);
    for (let i = 0; ; i++) {
      if (
        flags[hash & (HASH_FLAGS - 1)] === 1 &&
        this.#fragmentHashes.has(hash) &&
        this.#fragments.has(text.slice(i, i + FRAGMENT_LENGTH))
      ) {
        const last = spans.at(-1);
        if (last && last[1] >= i) last[1] = i + FRAGMENT_LENGTH;
        else spans.push([i, i + FRAGMENT_LENGTH]);
        // Whether there is one is all `finds` asks, on every event: no need to read on.
        if (firstOnly) return spans;
      }
      if (i + FRAGMENT_LENGTH >= text.length) break;
      hash = rollHash(hash, text.charCodeAt(i), text.charCodeAt(i + FRAGMENT_LENGTH));
    }
    return spans;
  }

  /** A copy of `value` (any JSON value) with every known key replaced in every string in it. */
  apply<T>(value: T): T {
    if (this.#forms.length === 0 || value === undefined) return value;
    if (typeof value === 'string') return this.text(value) as T;
    const json = JSON.stringify(value);
    if (json === undefined || !this.finds(json)) return value;
    // String by string, names included: a piece of a key can match digits of a number (a key
    // with a run of zeros, a cost such as 0.30000000000000004), and masking the serialised text
    // there would leave JSON that no longer parses.
    return this.#strings(JSON.parse(json)) as T;
  }

  #strings(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.#strings(item));
    if (value === null || typeof value !== 'object') return value;
    const clean: Record<string, unknown> = {};
    // Defined, not assigned: a name such as `__proto__` stays a plain property, as JSON has it.
    for (const [name, item] of Object.entries(value))
      Object.defineProperty(clean, this.text(name), {
        value: this.#strings(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return clean;
  }

  /**
   * A cleaner for text that arrives in pieces (a streamed answer): a key split across pieces is
   * still caught, because the end of each piece that could begin a key is held back until the
   * next piece (or `end`) shows whether it does.
   */
  stream(): StreamRedactor {
    return new StreamRedactor(this);
  }

  /** Length of the longest form of a key: how much of a stream may need holding back. */
  get longest(): number {
    return this.#longest;
  }

  /**
   * Whether `tail` is the beginning of some key (so more text could complete it), or, shorter
   * than FRAGMENT_LENGTH, a piece of one that more text could make long enough to mask.
   */
  couldBegin(tail: string): boolean {
    return this.#forms.some(
      (form) =>
        (form.length > tail.length && form.startsWith(tail)) ||
        (tail.length < FRAGMENT_LENGTH && form.slice(0, -1).includes(tail)),
    );
  }
}

/** 31^(FRAGMENT_LENGTH - 1) mod 2^32: the weight of the character leaving the window. */
const LEAVING_WEIGHT = (() => {
  let weight = 1;
  for (let i = 1; i < FRAGMENT_LENGTH; i++) weight = Math.imul(weight, 31);
  return weight;
})();

/** The hash of the FRAGMENT_LENGTH characters of `text` from `start` (polynomial, mod 2^32). */
function hashRun(text: string, start: number): number {
  let hash = 0;
  for (let i = start; i < start + FRAGMENT_LENGTH; i++) {
    hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  }
  return hash;
}

/** The hash of the window moved one character on: `leaving` drops out, `entering` comes in. */
function rollHash(hash: number, leaving: number, entering: number): number {
  return (Math.imul(hash - Math.imul(leaving, LEAVING_WEIGHT), 31) + entering) | 0;
}

/** `text` with each span that lies within it replaced by the mask (spans in order, apart). */
function masked(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    if (end > text.length) break;
    out += text.slice(at, start) + REDACTED;
    at = end;
  }
  return at === 0 && out === '' ? text : out + text.slice(at);
}

/** See `Redactor.stream`. */
export class StreamRedactor {
  readonly #redactor: Redactor;
  #pending = '';

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  /** Takes the next piece; returns the text that is safe to pass on now (possibly ''). */
  push(piece: string): string {
    // Pieces of keys are masked only in what is passed on: the held tail may yet become a whole
    // key, which must be replaced whole.
    const text = this.#redactor.wholeKeys(this.#pending + piece);
    // The text is scanned for pieces once: the same spans decide what is held and what is masked.
    const spans = this.#redactor.pieces(text);
    let cut = text.length - this.#heldTail(text);
    // A piece of a key that the cut would split (one reaching the end may go on in the next
    // piece) is held from its start, so it is masked whole rather than a part at a time.
    for (const [start, end] of spans) if (start < cut && end > cut) cut = start;
    const last = spans.at(-1);
    if (last && last[1] === text.length) cut = Math.min(cut, last[0]);
    this.#pending = text.slice(cut);
    return masked(text.slice(0, cut), spans);
  }

  /** The text still held back, once the stream has ended. */
  end(): string {
    const rest = this.#pending;
    this.#pending = '';
    return this.#redactor.fragments(rest);
  }

  /** How many characters at the end of `text` could be the start of a key. */
  #heldTail(text: string): number {
    const longest = Math.min(this.#redactor.longest - 1, text.length);
    for (let n = longest; n > 0; n--) {
      if (this.#redactor.couldBegin(text.slice(text.length - n))) return n;
    }
    return 0;
  }
}
