/**
 * The bounds every run lives within, whatever its document asks for. A shared document is data:
 * it may tighten these, or loosen them up to a hard ceiling, but it can never make a run that
 * reads files, runs unbounded or fills the disk. The defaults are generous for real societies
 * (the 129-member Artist–Critic renders a few kilobytes per prompt) and small next to what an
 * attacker would need.
 */
import { z } from 'zod';

/** What `settings.limits` of a document may set; each field is optional. */
export const RunLimitsSchema = z.looseObject({
  /** Largest answer body accepted from one model or expert call, in bytes. */
  answerBytes: z.number().int().positive().optional(),
  /** Longest a single template may take to render, in milliseconds. */
  templateMs: z.number().int().positive().optional(),
  /** Largest text a single template may produce, in bytes (UTF-8). */
  templateBytes: z.number().int().positive().optional(),
  /** Most loop iterations (and range items) a single template render may go through. */
  templateIterations: z.number().int().positive().optional(),
  /** Longest one of a node's computations over document data (rules, say) may take, in ms. */
  computeMs: z.number().int().positive().optional(),
  /** Most pixels (width × height, read from the header) of an image a run takes or decodes. */
  imagePixels: z.number().int().positive().optional(),
  /** Longest one tool call may take, in milliseconds (else `settings.timeoutMs`, else 60 s). */
  toolMs: z.number().int().positive().optional(),
});
export type RunLimitsSettings = z.infer<typeof RunLimitsSchema>;

/** The limits a run uses, every field set. */
export interface RunLimits {
  answerBytes: number;
  templateMs: number;
  templateBytes: number;
  templateIterations: number;
  computeMs: number;
  imagePixels: number;
  toolMs: number;
}

/** What a run uses when its document sets nothing. */
export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  answerBytes: 8 * 1024 * 1024,
  templateMs: 2_000,
  templateBytes: 1024 * 1024,
  templateIterations: 100_000,
  computeMs: 2_000,
  // 4096×4096, 64 MiB decoded as RGBA: the papers' pictures are at most a few megapixels, a
  // camera's photo is 12 to 24 (a document may raise it to the ceiling). A few kilobytes of PNG
  // can claim 16383×16383, which takes gigabytes to decode.
  imagePixels: 4096 * 4096,
  toolMs: 60_000,
});

/** What a document may raise each limit to, at most; larger values are clamped to these. */
export const LIMIT_CEILINGS: Readonly<RunLimits> = Object.freeze({
  answerBytes: 64 * 1024 * 1024,
  templateMs: 10_000,
  templateBytes: 16 * 1024 * 1024,
  templateIterations: 5_000_000,
  computeMs: 10_000,
  // 10,000×10,000: about 400 MB decoded as RGBA, which one run may afford.
  imagePixels: 100_000_000,
  toolMs: 10 * 60_000,
});

/** Longest wait between two attempts of a call a document may ask for (`settings.retry.maxMs`). */
export const MAX_WAIT_MS = 5 * 60_000;

/** Longest a document may let one call attempt take (`settings.timeoutMs`). */
export const MAX_CALL_MS = 10 * 60_000;

/** Structural bounds checked when a document is parsed, before anything recursive reads it. */
export const DOCUMENT_BOUNDS = Object.freeze({
  /** Deepest nesting of objects and arrays anywhere in a document. */
  maxDepth: 64,
  /** Most copies one replicated node or group may make. */
  maxReplicas: 1_000,
  /** Most node instances a whole document may expand to, replicas multiplied out. */
  maxInstances: 10_000,
});

/** The limits for a run: the defaults, what the document sets, then clamped to the ceilings. */
export function resolveLimits(settings: RunLimitsSettings | undefined): RunLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof RunLimits>) {
    const value = settings?.[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
      out[key] = Math.min(value, LIMIT_CEILINGS[key]);
    }
  }
  return out;
}
