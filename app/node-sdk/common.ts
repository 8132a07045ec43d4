/** Data fields every node type accepts, and helpers node specs share. */
import { z } from 'zod';
import { identifier, ReplicateSchema, STAGES } from '../schema/document.ts';
import { isModality, type Modality } from '../schema/modality.ts';
import type { DataProblem, PortSpec } from './define.ts';
import { TemplateError, templateRefusal, templateSlots } from './template.ts';

/** Fields shared by all node data: a display label, replication, a mindstorm stage, UI state. */
export const baseData = {
  label: z.string().optional(),
  replicate: ReplicateSchema.optional(),
  /** Inside a mindstorm: when the node runs (default `round`: once per round). */
  stage: z.enum(STAGES).optional(),
  /** Editor-only state (collapsed, colour…); ignored by the engine. */
  ui: z.record(z.string(), z.unknown()).optional().meta({ editor: 'hidden' }),
};

/** The first line of a text, cut to `max` characters: what a card's summary quotes. */
export function firstLine(text: string | undefined, max = 60): string | undefined {
  return text?.split('\n')[0]?.slice(0, max);
}

/**
 * A name a person gives on a command line or a form (`--input NAME=…`, a human node's answer):
 * letters, digits, _ and -, and never a name every JavaScript object already has.
 */
export const nameSchema = identifier;

export const modalitySchema = z
  .string()
  .refine(
    isModality,
    'not a modality (text, image, audio, asset3d, json, number, boolean, label, any or list<…>)',
  )
  .transform((s) => s as Modality);

/** Declared modalities for template slots; undeclared slots are text. */
export const slotsSchema = z.record(z.string(), modalitySchema).optional();

/**
 * Input ports for a template's slots. Names bound by replication (`as`) are not ports, nor the
 * names the node gives its template itself (`own`). Bad template syntax yields no ports;
 * `templateProblems` reports it.
 */
export function slotPorts(
  templates: Array<string | undefined>,
  data: {
    replicate?: { as?: string | undefined } | undefined;
    slots?: Record<string, Modality> | undefined;
  },
  own: readonly string[] = [],
): PortSpec[] {
  const provided = [data.replicate?.as ?? 'item', ...own];
  const names: string[] = [];
  for (const template of templates) {
    if (!template) continue;
    try {
      for (const slot of templateSlots(template, provided))
        if (!names.includes(slot)) names.push(slot);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
    }
  }
  return names.map((name) => ({ name, modality: data.slots?.[name] ?? 'text', required: true }));
}

/**
 * Reports, for the given data fields, template syntax errors and the tags a shared document may
 * not use (`{% include %}` and the others that read files).
 */
export function templateProblems(fields: Record<string, string | undefined>): DataProblem[] {
  const problems: DataProblem[] = [];
  for (const [field, template] of Object.entries(fields)) {
    if (!template) continue;
    try {
      templateSlots(template);
      const refusal = templateRefusal(template);
      if (refusal) problems.push({ path: [field], message: refusal.message });
    } catch (error) {
      problems.push({ path: [field], message: `template error: ${(error as Error).message}` });
    }
  }
  return problems;
}
