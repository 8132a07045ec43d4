/**
 * The last text each template rendered in a run, handed out again when the template reads the
 * same values: the copies of a replicated node render the same prompt from the same inputs (50
 * critics, each shown the same 26 proposals), and rendering it once instead of 50 times is time
 * the last copy's call no longer waits for before it leaves.
 *
 * A render is a function of the values the template reads: its root variables. Only values that
 * cannot change under it are compared (text, numbers, booleans, nothing, and lists of them,
 * item by item); a template reading anything else is rendered every time, as is one using a
 * filter whose output is not a function of its input (`date` reads the clock, `sample` draws at
 * random).
 */
import { templateVariables } from '../node-sdk/template.ts';

/** What a template reads, once worked out: its root variables, or false when not kept. */
type Reads = string[] | false;

interface Kept {
  values: unknown[];
  text: Promise<string>;
}

/** Filters whose output is not a function of the values (Liquid's `date`, `sample`). */
const UNSTABLE = /\b(?:date|sample)\b/;

/** Templates a run keeps a text for; a run's templates are its document's, so this is generous. */
const KEPT = 512;

/** One run's memo of renders (see the module's comment). */
export class RenderMemo {
  readonly #reads = new Map<string, Reads>();
  /** By field, then by template: a failure names the field it was rendered for. */
  readonly #kept = new Map<string, Map<string, Kept>>();
  #count = 0;

  /**
   * The values `template` reads from `vars` when its text may be kept, or undefined when it is
   * to be rendered every time.
   */
  read(template: string, vars: Record<string, unknown>): unknown[] | undefined {
    const names = this.#readsOf(template);
    if (!names) return undefined;
    const values: unknown[] = [];
    for (const name of names) {
      // As Liquid reads it (ownPropertyOnly): a name the variables do not own is nothing.
      const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
      if (!isSteady(value)) return undefined;
      values.push(value);
    }
    return values;
  }

  /**
   * The render of `template` from these values asked for last time (it may still be under
   * way), or undefined.
   */
  lookup(field: string, template: string, values: unknown[]): Promise<string> | undefined {
    const kept = this.#kept.get(field)?.get(template);
    return kept && sameValues(kept.values, values) ? kept.text : undefined;
  }

  /**
   * Keeps the render of `template` from `values` (as `read` gave them) for the copies that ask
   * for it next, from the moment it is asked for: copies started together render while the
   * first is still rendering. A render that fails is not kept.
   */
  keep(field: string, template: string, values: unknown[], text: Promise<string>): void {
    let byTemplate = this.#kept.get(field);
    if (!byTemplate) {
      byTemplate = new Map();
      this.#kept.set(field, byTemplate);
    }
    if (!byTemplate.has(template)) {
      if (this.#count >= KEPT) return;
      this.#count++;
    }
    // Lists are copied: whoever holds one could change it in place after this render.
    const own = values.map((value) => (Array.isArray(value) ? [...value] : value));
    byTemplate.set(template, { values: own, text });
    const kept = byTemplate;
    text.catch(() => {
      if (kept.get(template)?.text === text && kept.delete(template)) this.#count--;
    });
  }

  #readsOf(template: string): Reads {
    let names = this.#reads.get(template);
    if (names === undefined) {
      try {
        names = UNSTABLE.test(template) ? false : templateVariables(template);
      } catch {
        // Bad syntax: the render reports it, every time.
        names = false;
      }
      if (this.#reads.size < KEPT) this.#reads.set(template, names);
    }
    return names;
  }
}

function isScalar(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}

/** A value a render reads as it is now, whoever holds it: a scalar, or a list of scalars. */
function isSteady(value: unknown): boolean {
  if (isScalar(value)) return true;
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!isScalar(item)) return false;
  return true;
}

function sameValues(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (Object.is(x, y)) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (!Object.is(x[j], y[j])) return false;
  }
  return true;
}
