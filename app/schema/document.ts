/**
 * The graph document: the product's public, key-free file format (`*.society.json`).
 * Its shape follows React Flow's `toObject()` (nodes with id/type/position/data/parentId,
 * edges with source/target handles) so the editor can load it as is. Unknown fields are kept,
 * never dropped, so a document written by a newer editor survives a round trip.
 */
import { z } from 'zod';
import { tooManyReplicas } from './bounds.ts';
import { DOCUMENT_BOUNDS, MAX_CALL_MS, MAX_WAIT_MS, RunLimitsSchema } from './limits.ts';
import { isModality } from './modality.ts';
import { isPrototypeName, prototypeNameMessage } from './names.ts';
import { ParamsSchema } from './params.ts';

/** The document version this build writes. Older versions are migrated on load. */
export const DOCUMENT_VERSION = 1;

/** A name that keys a map (node ids, model profiles): never one found on every object. */
export const identifier = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_-]*$/,
    'must start with a letter or _ and use letters, digits, _ or -',
  )
  .refine((name) => !isPrototypeName(name), {
    error: (issue) => prototypeNameMessage(String(issue.input), 'a name'),
  });

export const PositionSchema = z.looseObject({ x: z.number(), y: z.number() });

/** Instantiate a node or a group once per item; each copy sees its item under the name `as`. */
export const ReplicateSchema = z.strictObject({
  items: z
    .array(z.unknown())
    .min(1, 'needs at least one item')
    // The message is made when needed: formatting its number loads the locale data (~12 ms),
    // which every command loading this schema would otherwise pay at start.
    .max(DOCUMENT_BOUNDS.maxReplicas, { error: () => tooManyReplicas() }),
  as: identifier.default('item').optional(),
});
export type Replicate = z.infer<typeof ReplicateSchema>;

/** Stages of the NLSOM protocol, used by nodes inside a mindstorm. */
export const STAGES = ['init', 'round', 'gather', 'decide'] as const;
export type Stage = (typeof STAGES)[number];

export const NodeSchema = z.looseObject({
  id: identifier,
  type: z.string().min(1),
  position: PositionSchema,
  data: z.record(z.string(), z.unknown()),
  parentId: z.string().optional(),
  /**
   * The version of `data`, as its node type numbers them (absent: 1). Reading a document
   * migrates older data to the type's current version (node-versions.ts).
   */
  version: z.number().int().positive().optional(),
});
export type GraphNode = z.infer<typeof NodeSchema>;

export const EdgeDataSchema = z.looseObject({
  /** Inside a mindstorm: carry the value the source produced in the previous round. */
  previousRound: z.boolean().optional(),
  /** The value a previous-round edge carries in round 1 (absent: the input is empty). */
  initial: z.unknown().optional(),
  /** Leaving a mindstorm: the last round's value (default) or the list of every round's. */
  collect: z.enum(['last', 'all']).optional(),
});

export const EdgeSchema = z.looseObject({
  id: z.string().min(1),
  source: z.string().min(1),
  sourceHandle: z.string().min(1),
  target: z.string().min(1),
  targetHandle: z.string().min(1),
  data: EdgeDataSchema.optional(),
});
export type GraphEdge = z.infer<typeof EdgeSchema>;

/**
 * A model profile names a provider profile (how to reach it, set up by the user) and a model.
 * It never holds a key: keys live with the user's provider settings or environment.
 */
export const ModelProfileSchema = z.looseObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  /** The model accepts images in its messages (vision-language models). */
  vision: z.boolean().optional(),
});
export type ModelProfile = z.infer<typeof ModelProfileSchema>;

export const RunSettingsSchema = z.looseObject({
  /** Concurrent model calls: a default per provider, and overrides by provider profile name. */
  concurrency: z
    .looseObject({
      default: z.number().int().positive().optional(),
      providers: z.record(z.string(), z.number().int().positive()).optional(),
    })
    .optional(),
  budget: z
    .looseObject({
      maxCalls: z.number().int().nonnegative().optional(),
      maxTokens: z.number().int().nonnegative().optional(),
      /** US dollars at the price table in use. */
      maxCostUsd: z.number().nonnegative().optional(),
      /** Tool calls the whole run may make (function calling; every call a model asks for). */
      maxToolCalls: z.number().int().nonnegative().optional(),
    })
    .optional(),
  retry: z
    .looseObject({
      attempts: z.number().int().min(1).max(20).optional(),
      baseMs: z.number().nonnegative().max(MAX_WAIT_MS).optional(),
      maxMs: z.number().nonnegative().max(MAX_WAIT_MS).optional(),
    })
    .optional(),
  /** Bounds on answers and templates (app/schema/limits.ts has the defaults and ceilings). */
  limits: RunLimitsSchema.optional(),
  /** Per model call timeout: a shared document cannot keep a run waiting on one call for ever. */
  timeoutMs: z.number().int().positive().max(MAX_CALL_MS).optional(),
  /** Seed for everything random in a run (tie-breaks, the simulated provider). */
  seed: z.union([z.number(), z.string()]).optional(),
});
export type RunSettings = z.infer<typeof RunSettingsSchema>;

/**
 * A graph of the document's own library (a sub-society): nodes and edges like the document's,
 * run wherever a node names it (`NodeSpec.subgraph`), its input and output nodes becoming that
 * node's ports. Everything it needs is in the document: nothing is read from another file.
 */
export const LibraryGraphSchema = z
  .looseObject({
    description: z.string().optional(),
    nodes: z.array(NodeSchema),
    edges: z.array(EdgeSchema),
    /**
     * Where the graph was copied from ("insert a document as a sub-society"): that document's
     * name and the hash of its content then, so the editor can offer "update from source".
     */
    source: z.looseObject({ name: z.string(), hash: z.string() }).optional(),
  })
  .superRefine((graph, ctx) => uniqueIds(graph, ctx));
export type LibraryGraph = z.infer<typeof LibraryGraphSchema>;

/** Node ids and edge ids are unique within one graph. */
function uniqueIds(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  ctx: z.core.$RefinementCtx,
): void {
  const seen = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    const first = seen.get(node.id);
    if (first !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['nodes', i, 'id'],
        message: `duplicate node id "${node.id}" (also nodes[${first}])`,
      });
    } else seen.set(node.id, i);
  });
  const edgeIds = new Set<string>();
  graph.edges.forEach((edge, i) => {
    if (edgeIds.has(edge.id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['edges', i, 'id'],
        message: `duplicate edge id "${edge.id}"`,
      });
    }
    edgeIds.add(edge.id);
  });
}

/** Checked here rather than as a record's key schema, whose failure says only "Invalid key". */
function namedKeys(what: string) {
  return (record: Record<string, unknown>, ctx: z.core.$RefinementCtx): void => {
    for (const name of Object.keys(record)) {
      const checked = identifier.safeParse(name);
      if (!checked.success) {
        const why = checked.error.issues[0]?.message ?? 'not a valid name';
        ctx.addIssue({ code: 'custom', path: [name], message: `${what} "${name}": ${why}` });
      }
    }
  };
}

/**
 * How the document is served (`society serve`): for the OpenAI-compatible endpoint, the text
 * input the last user message feeds, the output that answers, the text input that receives the
 * transcript of the earlier turns, the one that receives the system message and the image input
 * the last user message's first image feeds. Each names a run input or output (checked when the
 * document compiles); unset, a chat feeds the first text input and the first image input and
 * reads the first text output.
 */
export const ServeSettingsSchema = z.looseObject({
  chat: z
    .strictObject({
      input: z.string().min(1).optional(),
      output: z.string().min(1).optional(),
      history: z.string().min(1).optional(),
      system: z.string().min(1).optional(),
      image: z.string().min(1).optional(),
    })
    .optional(),
});
export type ServeSettings = z.infer<typeof ServeSettingsSchema>;

export const DocumentSchema = z
  .looseObject({
    version: z.literal(DOCUMENT_VERSION),
    name: z.string().min(1),
    description: z.string().optional(),
    models: z
      .record(z.string(), ModelProfileSchema)
      .superRefine(namedKeys('model profile'))
      .optional(),
    settings: RunSettingsSchema.optional(),
    serve: ServeSettingsSchema.optional(),
    /**
     * Template parameters by name (params.ts): typed values with defaults that node data refers
     * to as `{ "$param": "NAME" }`, set per run without editing the graph.
     */
    params: ParamsSchema.optional(),
    nodes: z.array(NodeSchema),
    edges: z.array(EdgeSchema),
    /** The document's library of sub-societies by name (see `LibraryGraphSchema`). */
    graphs: z.record(z.string(), LibraryGraphSchema).superRefine(namedKeys('graph')).optional(),
  })
  .superRefine((doc, ctx) => uniqueIds(doc, ctx));
export type GraphDocument = z.infer<typeof DocumentSchema>;

export { isModality };
