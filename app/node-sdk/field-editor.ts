/**
 * A field's editor in the inspector, declared on the field's schema with zod's `.meta()`: the
 * node SDK's words for it, and zod's global metadata made to carry them.
 */
import type { ShowWhen } from './show-when.ts';

/**
 * How the inspector edits one field of a node's data. Declared on the field's schema:
 * `prompt: z.string().meta({ editor: 'code', language: 'liquid' })`. A field with no editor
 * gets the default for its type (a one-line box for a string, a select for an enum, JSON for
 * lists and records).
 */
export interface FieldEditorMeta {
  /**
   * - `text`: a one-line box (the default for strings);
   * - `multiline`: a plain text area;
   * - `code`: a code editor in `language`;
   * - `model-profile`: a box suggesting the document's model profiles;
   * - `expert-module`: a box suggesting the expert catalogue's modules;
   * - `expert-model`: a box suggesting the catalogue's models for the node's `module`;
   * - `modality`: a choice of the known modalities (app/schema/modality.ts) and their lists;
   * - `library-graph`: a select of the document's library graphs (`graphs`);
   * - `hidden`: not in the form (editor-only state).
   */
  editor?:
    | 'text'
    | 'multiline'
    | 'code'
    | 'model-profile'
    | 'expert-module'
    | 'expert-model'
    | 'modality'
    | 'library-graph'
    | 'hidden';
  /** For `code`: `liquid` is a template (slots highlighted and completed); default `liquid`. */
  language?: 'liquid' | 'json';
  /** For `code` and `multiline`: the lines shown before it scrolls. */
  lines?: number;
  /** Shown in the empty field. */
  placeholder?: string;
  /**
   * When the field applies, by the values of other fields of its object (./show-when.ts):
   * `{ field: 'mode', is: 'model' }`, `{ field: 'kind', in: ['a', 'b'] }`, or a list that must
   * all hold. The inspector leaves a field out while its condition fails (its value is kept),
   * and `society nodes` prints the condition beside it. Data only; the registry checks it.
   */
  showWhen?: ShowWhen;
}

declare module 'zod' {
  /** zod's global metadata (`.meta()`) also carries a field's editor. */
  interface GlobalMeta extends FieldEditorMeta {}
}
