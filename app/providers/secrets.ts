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
  }

  /** Adds key values to the known ones. */
  add(secrets: Iterable<string>): void {
    this.set([...this.#secrets, ...secrets]);
  }

  /** The key values known, longest first. */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** Whether `text` holds any known key. */
  finds(text: string): boolean {
    return this.#forms.some((form) => text.includes(form));
  }

  /** `text` with every known key replaced by `[redacted]`. */
  text(text: string): string {
    if (this.#forms.length === 0 || !this.finds(text)) return text;
    let clean = text;
    for (const form of this.#forms) clean = clean.split(form).join(REDACTED);
    return clean;
  }

  /** A copy of `value` (any JSON value) with every known key replaced in every string in it. */
  apply<T>(value: T): T {
    if (this.#forms.length === 0 || value === undefined) return value;
    if (typeof value === 'string') return this.text(value) as T;
    const json = JSON.stringify(value);
    if (json === undefined || !this.finds(json)) return value;
    return JSON.parse(this.text(json)) as T;
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

  /** Whether `tail` is the beginning of some key (so more text could complete it). */
  couldBegin(tail: string): boolean {
    return this.#forms.some((form) => form.length > tail.length && form.startsWith(tail));
  }
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
    const text = this.#redactor.text(this.#pending + piece);
    const hold = this.#heldTail(text);
    this.#pending = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  /** The text still held back, once the stream has ended. */
  end(): string {
    const rest = this.#pending;
    this.#pending = '';
    return rest;
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
