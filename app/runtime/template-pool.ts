/**
 * Renders a run's templates on the thread pool (thread-pool.ts). liquidjs renders synchronously,
 * and its async render never yields to the event loop either (each step is a microtask), so a
 * slow template rendered here would hold up everything else in the process. liquidjs checks the
 * clock at every block and stops a render at its time limit; a render that outlives its limit
 * anyway (one slow step, such as a sort of a large list) fails at the limit all the same, and
 * its thread is terminated.
 *
 * Most renders never go to a thread: `renderNodeTemplate` first renders on the caller's thread
 * within small limits, and only a template that goes past them is rendered on a thread.
 */
import {
  CALLER_LIMITS,
  renderTemplate,
  TemplateError,
  TemplateLimitError,
  type TemplateLimits,
  templateFailure,
} from '../node-sdk/template.ts';
import { timeLimitError } from '../node-sdk/template-bounds.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { POOL_HEAP_MB, type PoolFailure, runOnThread } from './thread-pool.ts';

/**
 * How long past its time limit a render may go before it fails anyway and its thread is
 * stopped. liquidjs answers at the limit itself unless one step of the render is slow.
 */
export const STOP_GRACE_MS = 250;

/**
 * Renders a template within `limits` off the event loop; rejects with a TemplateError (a
 * TemplateLimitError when the render went past a limit, time included), or with the signal's
 * reason when it is aborted first.
 */
export async function renderOffThread(
  template: string,
  vars: Record<string, unknown>,
  limits: TemplateLimits = DEFAULT_LIMITS,
  signal?: AbortSignal,
): Promise<string> {
  const text = await runOnThread(
    {
      request: { kind: 'render', template, vars, limits },
      ms: limits.templateMs + STOP_GRACE_MS,
      timeout: () => timeLimitError(limits.templateMs),
      failure: replyError,
      gone: (outOfMemory) =>
        new TemplateError(
          outOfMemory
            ? `ran out of memory while rendering (a render may use ${POOL_HEAP_MB} MB)`
            : 'could not be rendered: the rendering thread stopped',
        ),
      here: () => renderTemplate(template, vars, limits),
    },
    signal,
  );
  return typeof text === 'string' ? text : '';
}

/**
 * A node's template rendered for a run, within the run's limits; a failure becomes one line that
 * names the field ("its prompt template went past the 2,000 ms render limit (…)"). It is first
 * tried on this thread within CALLER_LIMITS (or the run's own, where smaller); only a template
 * that goes past them — a long transcript, a large loop, a hostile document — is rendered again
 * on a rendering thread, within the run's limits.
 */
export async function renderNodeTemplate(
  template: string,
  vars: Record<string, unknown>,
  field: string,
  limits: TemplateLimits,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const quick = quickLimits(limits);
    for (let attempt = 1; ; attempt++) {
      const cpuBefore = threadCpuMs();
      try {
        if (signal?.aborted) throw signal.reason;
        return renderTemplate(template, vars, quick);
      } catch (error) {
        // Past a quick limit that is smaller than the run's: the run allows more, off this thread.
        if (!(error instanceof TemplateLimitError) || quick[error.limit] >= limits[error.limit]) {
          throw error;
        }
        // A render past its time limit that spent little of it working was held up (the
        // process descheduled on a busy machine, a garbage collection): a rendering thread
        // would cost far more than trying once more here.
        const worked = threadCpuMs() - cpuBefore;
        if (error.limit !== 'templateMs' || attempt > 1 || worked >= quick.templateMs / 2) break;
      }
    }
    return await renderOffThread(template, vars, limits, signal);
  } catch (error) {
    if (error instanceof TemplateError) throw new TemplateError(templateFailure(field, error));
    throw error;
  }
}

/** CPU time this thread has used, in ms (the whole process's where Node cannot tell a thread's). */
function threadCpuMs(): number {
  const usage = process.threadCpuUsage?.() ?? process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function quickLimits(limits: TemplateLimits): TemplateLimits {
  return {
    templateMs: Math.min(CALLER_LIMITS.templateMs, limits.templateMs),
    templateBytes: Math.min(CALLER_LIMITS.templateBytes, limits.templateBytes),
    templateIterations: Math.min(CALLER_LIMITS.templateIterations, limits.templateIterations),
  };
}

function replyError(error: PoolFailure): Error {
  if (error.limit && error.value !== undefined && error.what !== undefined) {
    return new TemplateLimitError(error.limit, error.value, error.what);
  }
  return error.internal ? new Error(error.message) : new TemplateError(error.message);
}
