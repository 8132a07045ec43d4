/**
 * The one contract between the editor (renderer) and the backend. Electron IPC and the studio's
 * loopback WebSocket both implement it; every request and response is validated with these
 * schemas on both sides. Nothing here ever carries a key: the renderer can set one, and learn
 * whether one is set and its last four characters, never read it back.
 *
 * Wire format (WebSocket): the page sends `{ id, method, params }`; the backend answers
 * `{ id, result }` or `{ id, error: { message, problems? } }`, and pushes run events as
 * `{ push: 'run.event', runId, event }`.
 */
import { z } from 'zod';

const Problem = z.object({ path: z.string(), node: z.string().optional(), message: z.string() });
export type ApiProblem = z.infer<typeof Problem>;

/** A document is passed as parsed JSON; the backend validates it with the document schema. */
const Document = z.record(z.string(), z.unknown());

const Breakpoint = z.union([
  z.object({ node: z.string() }),
  z.object({ round: z.number().int().min(1), loop: z.string().optional() }),
  z.object({ event: z.string() }),
  z.object({ message: z.object({ from: z.string().optional(), contains: z.string().optional() }) }),
]);

const RunSummary = z.object({
  id: z.string(),
  graph: z.string(),
  status: z.string(),
  startedAt: z.number(),
  calls: z.number(),
  tokens: z.number(),
  costUsd: z.number().optional(),
});

const KeyStatus = z.object({
  /** The environment variable the key stands for, e.g. OPENAI_API_KEY. */
  name: z.string(),
  configured: z.boolean(),
  /** The last four characters, so people can tell keys apart; never more. */
  last4: z.string().max(4).optional(),
});

/** Environment variables a key may be entered for. */
export const KEY_NAMES = ['OPENAI_API_KEY', 'HF_TOKEN'] as const;

/** Every method: its params and its result. */
export const contract = {
  'templates.list': {
    params: z.object({}),
    result: z.array(
      z.object({
        file: z.string(),
        name: z.string(),
        description: z.string(),
        /** Provider profile names its models use. */
        providers: z.array(z.string()),
        /** Worst-case cost at the price table, when every model has a price. */
        estimate: z.object({ calls: z.number(), tokens: z.number(), costUsd: z.number() }),
        /** A cassette ships with it, so it runs with no key. */
        hasCassette: z.boolean(),
      }),
    ),
  },
  'templates.open': {
    params: z.object({ file: z.string() }),
    result: z.object({ text: z.string() }),
  },
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
      /** Answers from the simulated provider (labelled) instead of live models. */
      simulate: z.boolean().default(false),
      /** Replay a template's shipped cassette strictly (by template file name). */
      replayTemplate: z.string().optional(),
      breakpoints: z.array(Breakpoint).default([]),
      startPaused: z.boolean().default(false),
    }),
    result: z.object({ runId: z.string() }),
  },
  'run.control': {
    params: z.object({
      runId: z.string(),
      action: z.enum(['pause', 'resume', 'step', 'cancel']),
      step: z.enum(['node', 'message', 'round']).optional(),
    }),
    result: z.object({ paused: z.boolean() }),
  },
  'run.breakpoints': {
    params: z.object({ runId: z.string(), breakpoints: z.array(Breakpoint) }),
    result: z.object({}),
  },
  'runs.list': {
    params: z.object({ limit: z.number().int().min(1).max(500).default(50) }),
    result: z.array(RunSummary),
  },
  'runs.show': {
    params: z.object({ runId: z.string() }),
    result: z.object({
      run: z.record(z.string(), z.unknown()),
      events: z.array(z.record(z.string(), z.unknown())),
    }),
  },
  'settings.keys': {
    params: z.object({}),
    result: z.array(KeyStatus),
  },
  'settings.setKey': {
    params: z.object({ name: z.enum(KEY_NAMES), value: z.string().min(1).max(400) }),
    result: KeyStatus,
  },
  'settings.clearKey': {
    params: z.object({ name: z.enum(KEY_NAMES) }),
    result: KeyStatus,
  },
} as const;

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

export type ResponseMessage =
  | { id: number; result: unknown }
  | { id: number; error: { message: string; problems?: ApiProblem[] } };
