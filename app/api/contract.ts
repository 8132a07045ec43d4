/**
 * The one contract between the editor (renderer) and the backend. Electron IPC and the studio's
 * loopback WebSocket both implement it; every request and response is validated with these
 * schemas on both sides. Nothing here ever carries a key: the renderer can set one, and learn
 * whether one is set and its last four characters, never read it back.
 *
 * Wire format (WebSocket): the page sends `{ id, method, params }`; the backend answers
 * `{ id, result }` or `{ id, error: { message, problems?, reason? } }`, and pushes run events in
 * order, a batch at a time, as `{ push: 'run.events', pushes: [{ push: 'run.event', runId, event }…] }`
 * (main/api/push-batch.ts).
 */
import { z } from 'zod';
import { RubricSchema } from '../eval/rubrics.ts';
import { AgentContext } from './context-contract.ts';
import { creditContract } from './credit-contract.ts';
import { defaultsContract } from './defaults-contract.ts';
import { BaselineComparisonSchema, PaperTableSchema } from './eval-comparison-contract.ts';
import { interviewContract } from './interview-contract.ts';
import { mcpContract } from './mcp-contract.ts';
import { ratingsContract, ScaleRatingSchema } from './ratings-contract.ts';
import * as spending from './spending-contract.ts';
import { templatesContract } from './templates-contract.ts';
import { toolApprovalContract } from './tool-approval-contract.ts';

const Problem = z.object({ path: z.string(), node: z.string().optional(), message: z.string() });
export type ApiProblem = z.infer<typeof Problem>;

/** A document is passed as parsed JSON; the backend validates it with the document schema. */
const Document = z.record(z.string(), z.unknown());

const Breakpoint = z.union([
  z.object({ node: z.string() }),
  z.object({ round: z.number().int().min(1), loop: z.string().optional() }),
  z.object({ event: z.string(), report: z.string().optional() }),
  z.object({ message: z.object({ from: z.string().optional(), contains: z.string().optional() }) }),
  /** Before a call to this tool (`*`: any). */
  z.object({ tool: z.string().min(1).max(64) }),
  /** After a call to this tool (`*`: any) returned, before the model reads its result. */
  z.object({ toolResult: z.string().min(1).max(64) }),
]);

const RunSummary = z.object({
  id: z.string(),
  graph: z.string(),
  status: z.string(),
  startedAt: z.number(),
  calls: z.number(),
  tokens: z.number(),
  costUsd: z.number().optional(),
  /** How its calls were answered: live, simulated, replay, replay-then-live or replay-then-simulated (forks), record. */
  mode: z.string().optional(),
  /** The run this one forks. */
  parentRunId: z.string().optional(),
});

const DiffSide = z.object({
  id: z.string(),
  graph: z.string(),
  status: z.string(),
  mode: z.string(),
  startedAt: z.number(),
  parentRunId: z.string().optional(),
  forkSeq: z.number().optional(),
});
const SaidText = z.object({ text: z.string(), simulated: z.boolean() });
const Poll = z.object({ winner: z.string().nullable(), counts: z.record(z.string(), z.number()) });
const DiffUsage = z.object({
  calls: z.number(),
  live: z.number(),
  tokens: z.number(),
  costUsd: z.number(),
});

/** What changed between two runs (app/runs/diff.ts `diffRuns`, as `society diff` prints it). */
const RunDiff = z.object({
  a: DiffSide,
  b: DiffSide,
  fork: z.object({ child: z.enum(['a', 'b']), afterSeq: z.number() }).optional(),
  outputs: z.array(
    z.object({
      name: z.string(),
      a: z.unknown().optional(),
      b: z.unknown().optional(),
      same: z.boolean(),
    }),
  ),
  messages: z.array(
    z.object({
      from: z.string(),
      node: z.string(),
      loop: z.string().optional(),
      round: z.number().optional(),
      stage: z.string().optional(),
      a: SaidText.optional(),
      b: SaidText.optional(),
      change: z.enum(['same', 'changed', 'onlyA', 'onlyB']),
    }),
  ),
  votes: z.array(
    z.object({
      instance: z.string(),
      a: Poll.optional(),
      b: Poll.optional(),
      same: z.boolean(),
    }),
  ),
  usage: z.object({ a: DiffUsage, b: DiffUsage }),
});
export type ApiRunDiff = z.infer<typeof RunDiff>;
export type ApiAgentContext = z.infer<typeof AgentContext>;

/** A node instance id such as `member#1@r2` (what the transcript shows as the sender). */
const Instance = z.string().min(1).max(200);

const KeyStatus = z.object({
  /** The environment variable the key stands for, e.g. OPENAI_API_KEY. */
  name: z.string(),
  configured: z.boolean(),
  /** The last four characters, so people can tell keys apart; never more. */
  last4: z.string().max(4).optional(),
  /**
   * `environment` when the key comes from the backend's own environment (it cannot be cleared
   * here, only overridden); absent when it was entered in settings or is not set.
   */
  source: z.literal('environment').optional(),
});

/** Environment variables a key may always be entered for (the built-in providers'). */
export const KEY_NAMES = ['OPENAI_API_KEY', 'HF_TOKEN'] as const;

/**
 * What an environment variable's name looks like: the same rule `society providers --add
 * --key-env` applies (app/store/secrets.ts), restated because the page may not import the store.
 * Besides KEY_NAMES, a key may be entered for the variable a custom provider profile names.
 */
export const KEY_VARIABLE = /^[A-Z_][A-Z0-9_]{0,63}$/;

const KeyVariable = z
  .string()
  .regex(KEY_VARIABLE, 'must name an environment variable, e.g. OPENAI_API_KEY');

/** A provider profile as the page sees it: how to reach a server, never a key. */
const ProviderProfileView = z.object({
  name: z.string(),
  kind: z.enum(['openai-compatible', 'huggingface', 'simulated']),
  baseUrl: z.string().optional(),
  /** The environment variable holding its key; local servers need none. */
  apiKeyEnv: z.string().optional(),
  concurrency: z.number().int().optional(),
});

const ProviderList = z.object({
  /** Built into the app; read-only. A custom profile of the same name overrides one. */
  builtin: z.array(ProviderProfileView),
  /** Added in settings or with `society providers --add`; kept in the store. */
  custom: z.array(ProviderProfileView),
});

const ModelPrice = z.object({
  /** US dollars per million prompt (input) tokens. */
  inputPerMillion: z.number().finite().min(0).max(1_000_000),
  /** US dollars per million completion (output) tokens. */
  outputPerMillion: z.number().finite().min(0).max(1_000_000),
});

const PriceTable = z.array(
  ModelPrice.extend({
    model: z.string(),
    /** The price the app ships for this model, if it ships one. */
    default: ModelPrice.optional(),
    /** The user set this price (`society prices --set`); it replaces the default. */
    overridden: z.boolean(),
  }),
);

/** A model id as the price table keys it: `gpt-4o-mini`, `llava:13b`, `org/model`. */
const PricedModel = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s=]+$/, 'a model id has no spaces and no "="');

/** One variant's line of an eval's table (app/eval/types.ts `VariantSummary`). */
const EvalVariant = z.object({
  name: z.string(),
  /** Items finished, failed ones included (a failed one counts as 0 in the mean). */
  n: z.number(),
  failed: z.number(),
  score: z.object({ mean: z.number(), ci95: z.tuple([z.number(), z.number()]) }),
  costUsd: z.number(),
  /** Runs that solved their item, and the cost per solved one; absent where undefined. */
  solved: z.number().optional(),
  costPerSolvedUsd: z.number().optional(),
  /** This variant against the first by a paired test; absent on the first. */
  vsBaseline: BaselineComparisonSchema.optional(),
  tokens: z.number(),
  latencyMs: z.object({ p50: z.number(), p95: z.number() }),
  /** The mean rating per scale, when the eval has a rubric or ratings. */
  ratings: z.array(ScaleRatingSchema).optional(),
});

const EvalStatusSchema = z.enum(['running', 'finished', 'interrupted', 'over-budget']);

/** An eval's table, as `society eval --json` prints it (app/eval/types.ts `EvalSummary`). */
const EvalSummarySchema = z.object({
  evalId: z.string(),
  name: z.string(),
  status: EvalStatusSchema,
  items: z.number(),
  scorer: z.string(),
  /** Simulated answers were scored: the numbers say nothing about a model. */
  simulated: z.boolean(),
  document: z.string(),
  data: z.string(),
  createdAt: z.number(),
  finishedAt: z.number().optional(),
  variants: z.array(EvalVariant),
  /** Runs of each item × variant (`--repeats`), when more than one. */
  repeats: z.number().optional(),
  /** The scales people rate its items on (`society eval … --rubric`). */
  rubric: RubricSchema.optional(),
});
export type ApiEvalSummary = z.infer<typeof EvalSummarySchema>;

/** One item × variant of an eval: its score and the run that answered it. */
const EvalItem = z.object({
  /** The item's 0-based index in the dataset. */
  item: z.number(),
  variant: z.string(),
  /** Which run of the item under `--repeats` (0-based); absent for 0. */
  repeat: z.number().optional(),
  /** The stored run (the debugger opens it); absent before it started. */
  runId: z.string().optional(),
  status: z.enum(['running', 'scored', 'failed']),
  score: z.number().optional(),
  prediction: z.unknown().optional(),
  reference: z.unknown().optional(),
  /** A short text naming the item (its question). */
  label: z.string().optional(),
  error: z.string().optional(),
  costUsd: z.number(),
  tokens: z.number(),
  latencyMs: z.number().optional(),
});
export type ApiEvalItem = z.infer<typeof EvalItem>;

/** Every method: its params and its result. */
export const contract = {
  ...templatesContract,
  'document.validate': {
    params: z.object({ document: Document }),
    result: z.object({ ok: z.boolean(), problems: z.array(Problem) }),
  },
  'document.compile': {
    params: z.object({ document: Document }),
    result: z.object({
      ok: z.boolean(),
      problems: z.array(Problem),
      machines: z.unknown().optional(),
    }),
  },
  /**
   * The document as a file to share: key-free (a document holding a key is refused, naming
   * where), with a manifest of the providers, keys, models, node types and inputs it needs.
   */
  'document.export': {
    params: z.object({ document: Document }),
    result: z.object({
      text: z.string(),
      manifest: z.object({
        exportedBy: z.string(),
        exportedAt: z.string(),
        providers: z.array(
          z.object({ name: z.string(), builtin: z.boolean(), keyVariable: z.string().optional() }),
        ),
        models: z.array(
          z.object({
            profile: z.string(),
            provider: z.string(),
            model: z.string(),
            vision: z.boolean(),
          }),
        ),
        nodeTypes: z.array(z.string()),
        inputs: z.array(
          z.object({ name: z.string(), modality: z.string(), required: z.boolean() }),
        ),
        estimate: z
          .object({ calls: z.number(), tokens: z.number(), costUsd: z.number() })
          .optional(),
        problems: z.number(),
      }),
    }),
  },
  'files.list': {
    params: z.object({}),
    result: z.array(z.object({ name: z.string(), modifiedAt: z.number() })),
  },
  'files.read': {
    params: z.object({ name: z.string() }),
    result: z.object({ text: z.string() }),
  },
  'files.write': {
    params: z.object({ name: z.string(), text: z.string() }),
    result: z.object({ name: z.string() }),
  },
  'run.start': {
    params: z.object({
      document: Document,
      inputs: z.record(z.string(), z.unknown()).default({}),
      /**
       * Values for the document's template parameters by name (typed, or text read by each
       * parameter's type); the rest take their defaults. The run records the values it used.
       */
      params: z.record(z.string(), z.unknown()).default({}),
      /**
       * How the calls are answered, always said, never guessed: `live` calls the models with
       * the user's keys; `simulated` gives labelled simulated answers; `replay` answers from
       * `replayTemplate`'s cassette only and calls nothing, and is refused before the run when
       * the document, parameters or inputs differ from what the cassette was recorded with.
       */
      mode: z.enum(['live', 'simulated', 'replay']),
      /** The template whose shipped cassette a `replay` answers from (by file or base name). */
      replayTemplate: z.string().optional(),
      ...spending.LiveConsent,
      ...spending.BudgetStop,
      breakpoints: z.array(Breakpoint).default([]),
      startPaused: z.boolean().default(false),
    }),
    result: spending.StartedRun,
  },
  'run.control': {
    params: z.object({
      runId: z.string(),
      action: z.enum(['pause', 'resume', 'step', 'cancel']),
      step: z.enum(['node', 'message', 'round', 'tool']).optional(),
    }),
    result: z.object({ paused: z.boolean() }),
  },
  'run.breakpoints': {
    params: z.object({ runId: z.string(), breakpoints: z.array(Breakpoint) }),
    result: z.object({}),
  },
  /**
   * Changes what a run held at the debugger does next: the text of the message held before it
   * is delivered (`message`), or the outputs of a node instance held before it starts, which
   * then does not run (`output`). The change takes effect when the run is stepped or continued.
   */
  'run.editHeld': {
    params: z.discriminatedUnion('kind', [
      z.object({
        runId: z.string(),
        kind: z.literal('message'),
        instance: Instance,
        text: z.string().max(200_000),
        ...spending.BeyondCassette,
      }),
      z.object({
        runId: z.string(),
        kind: z.literal('output'),
        instance: Instance,
        outputs: z.record(z.string().min(1).max(100), z.unknown()),
        ...spending.BeyondCassette,
      }),
    ]),
    result: z.object({
      kind: z.enum(['message', 'output']),
      instance: z.string(),
      mode: z.string(),
    }),
  },
  /**
   * Exactly what an agent instance (or every instance of a node, by node id) was sent in one
   * call, its last by default, with roles and token counts; of a running or a stored run.
   */
  'run.context': {
    params: z.object({ runId: z.string(), instance: Instance, callId: z.string().optional() }),
    result: AgentContext,
  },
  /** Bytes a run holds (an image, audio, 3D asset an output points to), by content hash. */
  'run.blob': {
    params: z.object({ runId: z.string(), hash: z.string().regex(/^[0-9a-f]{8,128}$/) }),
    result: z.object({ mime: z.string(), base64: z.string() }),
  },
  'runs.list': {
    params: z.object({ limit: z.number().int().min(1).max(500).default(50) }),
    result: z.array(RunSummary),
  },
  /**
   * Forks a stored run (as `society fork RUN --edit INSTANCE=TEXT [--at SEQ]`): the new run keeps
   * the parent's events up to the first edited instance (or `at`), answers unchanged calls from
   * the parent's record and streams its events like `run.start`. A simulated parent's fork is
   * simulated too.
   */
  'runs.fork': {
    params: z
      .object({
        runId: z.string(),
        edits: z
          .array(z.object({ instance: Instance, text: z.string().max(200_000) }))
          .max(50)
          .default([]),
        at: z.number().int().min(2).optional(),
        simulate: z.boolean().default(false),
        ...spending.LiveConsent,
        breakpoints: z.array(Breakpoint).default([]),
      })
      .refine((p) => p.edits.length > 0 || p.at !== undefined, {
        message: 'say where to fork: an edit, or an event number (at)',
      }),
    result: z.object({ runId: z.string(), parentRunId: z.string(), forkSeq: z.number() }),
  },
  /**
   * Continues a failed or cancelled run once the cause is fixed (as `society resume RUN`): a new
   * run, recorded as a fork of it at the failure, answers every call the run answered from its
   * record, sends only the rest, and streams its events like `run.start`. A simulated run's
   * continuation is simulated too; a succeeded run, or a replay, is refused.
   */
  'runs.continue': {
    params: z.object({
      runId: z.string().min(1),
      ...spending.LiveConsent,
      breakpoints: z.array(Breakpoint).default([]),
    }),
    result: z.object({
      runId: z.string(),
      parentRunId: z.string(),
      forkSeq: z.number(),
      /** Calls the record answers. */
      answered: z.number(),
    }),
  },
  /** Compares two stored runs: outputs, each sender's messages, votes, usage. */
  'runs.diff': {
    params: z.object({ a: z.string().min(1), b: z.string().min(1) }),
    result: RunDiff,
  },
  /** Deletes a stored run with its events and calls (a run still going is refused). */
  'runs.delete': {
    params: z.object({ runId: z.string().min(1) }),
    result: z.object({ deleted: z.boolean() }),
  },
  'runs.show': {
    params: z.object({ runId: z.string() }),
    result: z.object({
      run: z.record(z.string(), z.unknown()),
      events: z.array(z.record(z.string(), z.unknown())),
    }),
  },
  /** Stored evals, newest first, each with its table (`society evals --json`). */
  'evals.list': {
    params: z.object({ limit: z.number().int().min(1).max(500).default(50) }),
    result: z.array(EvalSummarySchema),
  },
  /** One eval (by id or unique prefix): its table and every item × variant with its run. */
  'evals.get': {
    params: z.object({ evalId: z.string().min(1).max(200) }),
    result: z.object({
      summary: EvalSummarySchema,
      items: z.array(EvalItem),
      /** The paper layout its record names, printed as `society eval-show` prints it. */
      paperTable: PaperTableSchema.optional(),
    }),
  },
  ...ratingsContract,
  ...interviewContract,
  ...creditContract,
  ...spending.spendingContract,
  ...spending.hostsContract,
  ...mcpContract,
  ...toolApprovalContract,
  'settings.keys': {
    params: z.object({}),
    result: z.array(KeyStatus),
  },
  'settings.setKey': {
    /** `name`: one of KEY_NAMES or a custom provider profile's apiKeyEnv. */
    params: z.object({ name: KeyVariable, value: z.string().min(1).max(400) }),
    result: KeyStatus,
  },
  'settings.clearKey': {
    params: z.object({ name: KeyVariable }),
    result: KeyStatus,
  },
  'settings.providers.list': {
    params: z.object({}),
    result: ProviderList,
  },
  'settings.providers.save': {
    /**
     * Adds or changes an OpenAI-compatible profile, validated exactly as `society providers
     * --add` validates it (no key in the URL, a variable's name rather than a key, …). Unknown
     * fields are refused, not dropped, so a pasted `apiKey` is an error.
     */
    params: z.strictObject({
      name: z.string().min(1).max(64),
      baseUrl: z.string().min(1).max(2000),
      apiKeyEnv: z.string().min(1).max(64).optional(),
      concurrency: z.number().int().min(1).max(1024).optional(),
      /** When editing: the profile's name before; that profile is replaced. */
      previousName: z.string().min(1).max(64).optional(),
    }),
    result: ProviderList,
  },
  'settings.providers.remove': {
    params: z.object({ name: z.string().min(1).max(64) }),
    result: ProviderList,
  },
  'settings.prices.get': {
    params: z.object({}),
    result: PriceTable,
  },
  'settings.prices.set': {
    /** As `society prices --set MODEL=IN/OUT`. */
    params: ModelPrice.extend({ model: PricedModel }),
    result: PriceTable,
  },
  'settings.prices.reset': {
    /** As `society prices --unset MODEL`: back to the built-in price, or none. */
    params: z.object({ model: z.string().min(1).max(200) }),
    result: PriceTable,
  },
  ...defaultsContract,
} as const;

export {
  BUILTIN_MODEL_DEFAULTS,
  type ModelDefaults,
  ModelDefaultsSchema,
} from './defaults-contract.ts';
export type ApiContract = typeof contract;
export type ApiMethod = keyof ApiContract;
export type ApiParams<M extends ApiMethod> = z.input<ApiContract[M]['params']>;
export type ApiResult<M extends ApiMethod> = z.output<ApiContract[M]['result']>;

/** A request from the page. */
export const RequestMessage = z.object({
  id: z.number().int(),
  method: z.string(),
  params: z.unknown(),
});

/** A run event pushed to the page (the event's own shape is app/runtime/events.ts). */
export interface RunEventPush {
  push: 'run.event';
  runId: string;
  event: Record<string, unknown>;
}

/** Run events as the page receives them: a batch, in the order they happened. */
export interface RunEventsPush {
  push: 'run.events';
  pushes: RunEventPush[];
}

type Reason = spending.RefusalReason;
export type ResponseMessage =
  | { id: number; result: unknown }
  | { id: number; error: { message: string; problems?: ApiProblem[]; reason?: Reason } };
