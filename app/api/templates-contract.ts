/**
 * The gallery's methods (spread into app/api/contract.ts): the templates shipped with the app,
 * each with what the gallery shows of it, and a template's text to open a copy of.
 */
import { z } from 'zod';

/** The paper a template follows, for the gallery's grouping ('other': not from one). */
export const TemplatePaper = z.enum(['nlsom', 'openagi', 'mindagent', 'itcma', 'other']);
export type TemplatePaper = z.infer<typeof TemplatePaper>;

/** What kind of society it is, for the gallery's other grouping. */
export const TemplateKind = z.enum(['plans', 'debates', 'games', 'sandboxes']);
export type TemplateKind = z.infer<typeof TemplateKind>;

/**
 * The graph as the gallery draws it: every node's place and type, and which nodes are wired,
 * nothing of what the nodes do. Positions are React Flow's (inside a container: relative to it).
 */
export const TemplateOutline = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      position: z.object({ x: z.number(), y: z.number() }),
      parentId: z.string().optional(),
    }),
  ),
  edges: z.array(z.object({ source: z.string(), target: z.string() })),
});
export type TemplateOutline = z.infer<typeof TemplateOutline>;

const TemplateEntry = z.object({
  file: z.string(),
  name: z.string(),
  /** The document's description: where it comes from, the citation included. */
  description: z.string(),
  /** One line in plain words, written for the gallery (templates/gallery.json). */
  summary: z.string(),
  paper: TemplatePaper,
  /** Null for a template the gallery's metadata does not describe. */
  kind: TemplateKind.nullable(),
  /** Its place among the start page's few (0 first), or null when it is not one of them. */
  featured: z.number().int().nullable(),
  /** Provider profile names its models use. */
  providers: z.array(z.string()),
  /** The environment variables holding the keys a live run needs (`OPENAI_API_KEY`), sorted. */
  keys: z.array(z.string()),
  /** The likely run, as `society run --estimate` reckons it at the price table. */
  estimate: z.object({ calls: z.number(), tokens: z.number(), costUsd: z.number() }),
  /** A cassette ships with it, so it runs with no key. */
  hasCassette: z.boolean(),
  outline: TemplateOutline,
});
export type TemplateEntry = z.infer<typeof TemplateEntry>;

export const templatesContract = {
  'templates.list': { params: z.object({}), result: z.array(TemplateEntry) },
  'templates.open': {
    params: z.object({ file: z.string() }),
    result: z.object({ text: z.string() }),
  },
};
