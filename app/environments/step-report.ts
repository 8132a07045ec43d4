/**
 * What a node driving an environment reports of each step (a dispatcher in a CuisineWorld
 * kitchen, a simulator node in an outside world): the commands, what was refused and why, the
 * world after the step. Node types declare it as their `step` report (`NodeSpec.reports`), so
 * the run logs it as a `report` event; their run views and the episode tables read it back
 * through this schema.
 */
import { z } from 'zod';

/** One command that a validation stage refused, and why, in words for the model. */
export const rejectionSchema = z.object({
  /** The command as given (or the raw fragment, for a syntax error). */
  command: z.string(),
  /** Which agent it was for, when that could be read. */
  agent: z.string().optional(),
  /** The stage that refused it. */
  stage: z.enum(['syntax', 'vocabulary', 'assignment', 'precondition']),
  /** A short machine-readable reason, for counting (`unknown-verb`, `not-at-location`…). */
  reason: z.string(),
  /** The feedback sentence shown to the model. */
  message: z.string(),
});
export type Rejection = z.infer<typeof rejectionSchema>;

/** What happened in one step of an environment episode. */
export const stepReportSchema = z.object({
  /** The step that was played (0-based). */
  step: z.number().int().min(0),
  /** The commands given, in order, and who gave each (`model`, `person`, `rules`). */
  commands: z.array(z.object({ command: z.string(), by: z.string() })),
  /** What validation refused. */
  rejections: z.array(rejectionSchema),
  feedback: z.array(z.string()),
  completed: z.array(z.string()),
  failed: z.array(z.string()),
  /** The state after the step, as the environment shows it to the editor. */
  state: z.record(z.string(), z.unknown()),
  /** Attempts before the commands were committed (retry-before-commit), 1 otherwise. */
  attempts: z.number().int().min(1),
  /** What was refused in the attempts that were not committed (retry-before-commit). */
  retried: z.array(rejectionSchema).optional(),
  done: z.boolean(),
  /** True once any of the episode's commands came from made-up (simulated) answers. */
  simulated: z.boolean(),
});
export type EnvironmentStepReport = z.infer<typeof stepReportSchema>;

/** The report kind a node driving an environment logs each step under. */
export const STEP_REPORT = 'step';

/** A logged event, as far as reading steps needs it. */
interface StepSource {
  type: string;
  node?: string;
  instance?: string;
  kind?: string;
  data?: unknown;
}

/** A step read back from a run's events, with the node copy that played it. */
export type LoggedStep = EnvironmentStepReport & { node: string; instance: string };

/**
 * The environment steps among a run's events, in order: `step` reports that fit the schema.
 * (Runs stored before steps were reports hold `environment.step` events; reading a run turns
 * those into reports, see app/store/legacy-events.ts.)
 */
export function stepsOf(events: readonly StepSource[]): LoggedStep[] {
  return events.flatMap((e) => {
    if (e.type !== 'report' || e.kind !== STEP_REPORT) return [];
    const parsed = stepReportSchema.safeParse(e.data);
    return parsed.success
      ? [{ ...parsed.data, node: e.node ?? '', instance: e.instance ?? '' }]
      : [];
  });
}
