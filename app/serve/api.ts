/**
 * The HTTP API's routes: the societies served, starting a run, its events as Server-Sent Events
 * (the same typed events the run store records), waiting for and reading a run, cancelling it.
 * A run this server no longer holds is read from the run store.
 */
import type { RunResult } from '../runtime/engine.ts';
import type { RunEvent } from '../runtime/events.ts';
import { blobHashOf } from '../schema/blob-refs.ts';
import type { RunStore } from '../store/index.ts';
import { BUDGET_HEADER, chatBudget } from './budget.ts';
import { fieldsSchema, type ServedSociety } from './catalog.ts';
import { aborted, startedOrEnded } from './context.ts';
import { HttpError } from './errors.ts';
import type { Route, RouteContext } from './http.ts';
import { FORM_VALUES, isMultipart } from './multipart.ts';
import type { Runner, ServedRun } from './runs.ts';
import { RunRequest } from './schemas.ts';

/** What the routes serve from. */
export interface ServeContext {
  societies: ReadonlyMap<string, ServedSociety>;
  runner: Runner;
  store: RunStore;
}

/** A run as the API shows it. */
export interface RunView {
  id: string;
  society: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';
  outputs?: Record<string, unknown>;
  usage?: RunResult['usage'];
  error?: string;
  /** True when the simulated provider answered its calls: its outputs are made up. */
  simulated?: true;
}

/** The society `name` serves, else a 404 naming the field the name came in. */
export function societyNamed(ctx: ServeContext, name: string, field = 'name'): ServedSociety {
  const society = ctx.societies.get(name);
  if (!society)
    throw new HttpError(
      404,
      `no society "${name}" is served here (served: ${[...ctx.societies.keys()].join(', ')})`,
      field,
    );
  return society;
}

/** The API's routes. */
export function apiRoutes(ctx: ServeContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/societies',
      handler: ({ json }) =>
        json(200, {
          societies: [...ctx.societies.values()].map((s) => ({
            name: s.name,
            title: s.title,
            inputs: fieldsSchema(s.inputs),
            outputs: fieldsSchema(s.outputs),
          })),
        }),
    },
    {
      method: 'POST',
      path: '/societies/:name/runs',
      handler: async ({ req, params, body, form, json }) => {
        const society = societyNamed(ctx, params.name!);
        // A form's fields come as text; a JSON body's values have their own types.
        let served: ServedRun;
        // A form has no room for a budget beside its inputs: the header carries one.
        const header = req.headers[BUDGET_HEADER];
        if (isMultipart(req)) {
          const budget = chatBudget({}, header);
          served = ctx.runner.submit(society, await form(), { policy: FORM_VALUES, budget });
        } else {
          const { inputs, budget } = await body(RunRequest);
          served = ctx.runner.submit(society, inputs, { budget: chatBudget({ budget }, header) });
        }
        json(202, runView(ctx, served), { location: `/runs/${served.id}` });
      },
    },
    {
      method: 'GET',
      path: '/runs/:id',
      handler: async ({ params, query, json, signal }) => {
        const served = ctx.runner.get(params.id!);
        const wait = query.get('wait');
        if (served && wait !== null && wait !== '0' && wait !== 'false')
          await Promise.race([served.done, aborted(signal)]);
        if (signal.aborted) return;
        json(200, served ? runView(ctx, served) : storedView(ctx, params.id!));
      },
    },
    {
      method: 'DELETE',
      path: '/runs/:id',
      handler: async ({ params, json }) => {
        const served = ctx.runner.get(params.id!);
        // A run that has ended stays as it ended: the client is told so, not shown a success.
        const ended = (status: string) =>
          new HttpError(
            409,
            `run "${params.id}" already ended: ${status}, nothing to cancel`,
            'id',
          );
        if (!served) {
          const { status } = storedView(ctx, params.id!); // 404 when the store has none either
          if (status !== 'running' && status !== 'queued') throw ended(status);
          throw new HttpError(409, 'this run is not running on this server', 'id');
        }
        if (served.result) throw ended(served.result.status);
        ctx.runner.cancel(served.id);
        await served.done;
        json(200, runView(ctx, served));
      },
    },
    { method: 'GET', path: '/runs/:id/events', handler: (route) => streamEvents(ctx, route) },
  ];
}

/** Sends the run's events as they come (past ones first), and ends after `run.finished`. */
async function streamEvents(ctx: ServeContext, route: RouteContext): Promise<void> {
  const id = route.params.id!;
  const served = ctx.runner.get(id);
  if (!served) {
    storedView(ctx, id); // 404 for a run the store does not have
    const stream = route.sse();
    for (const event of ctx.store.events(id)) stream.send(event, event.type);
    stream.end();
    return;
  }
  const stream = route.sse();
  const run = await startedOrEnded(served, route.signal);
  // The client left while the run waited for its slot: nothing to follow.
  if (route.signal.aborted) return stream.end();
  if (!run) {
    // Cancelled while it waited, or refused by the store: it never started, so it has no
    // events of its own, and its end is the one the runner gave it.
    const { status, usage, error } = served.result!;
    stream.send(
      { type: 'run.finished', runId: id, status, outputs: {}, usage, ...(error ? { error } : {}) },
      'run.finished',
    );
    stream.end();
    return;
  }
  await new Promise<void>((resolve) => {
    const unsubscribe = run.subscribe(
      (event: RunEvent) => {
        stream.send(event, event.type);
        if (event.type === 'run.finished') {
          queueMicrotask(() => unsubscribe());
          resolve();
        }
      },
      { replay: true },
    );
    route.signal.addEventListener(
      'abort',
      () => {
        unsubscribe();
        resolve();
      },
      { once: true },
    );
  });
  stream.end();
}

function runView(ctx: ServeContext, served: ServedRun): RunView {
  const result = served.result;
  if (!result) return { id: served.id, society: served.society, status: served.state as 'queued' };
  return {
    id: served.id,
    society: served.society,
    status: result.status,
    outputs: withFiles(result.outputs, (hash) => served.blobs.get(hash) ?? ctx.store.getBlob(hash)),
    usage: result.usage,
    ...(result.error ? { error: result.error } : {}),
    ...(result.simulated ? { simulated: true as const } : {}),
  };
}

function storedView(ctx: ServeContext, id: string): RunView {
  let record: ReturnType<RunStore['getRun']>;
  try {
    record = ctx.store.getRun(id);
  } catch {
    record = undefined;
  }
  // Only whole ids: a prefix that matches is a convenience of the terminal, not of the API.
  if (!record || record.id !== id) throw new HttpError(404, `no run "${id}"`, 'id');
  return {
    id,
    society: servedNameOf(ctx, record.graphName),
    status: record.status as RunView['status'],
    ...(record.outputs
      ? { outputs: withFiles(record.outputs, (hash) => ctx.store.getBlob(hash)) }
      : {}),
    ...(record.usage ? { usage: record.usage } : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(record.mode.includes('simulated') ? { simulated: true as const } : {}),
  };
}

/**
 * The served name of a stored run's document, known by its name (the store keeps no served
 * name): the one society served under that title, else the document's name itself (a run of
 * another server or of `society run`).
 */
function servedNameOf(ctx: ServeContext, title: string): string {
  const named = [...ctx.societies.values()].filter((s) => s.title === title);
  return named.length === 1 ? named[0]!.name : title;
}

/** Outputs with each file (an image, a recording) as a data URL instead of a blob reference. */
export function withFiles(
  outputs: Record<string, unknown>,
  blob: (hash: string) => { bytes: Uint8Array; mime: string } | undefined,
): Record<string, unknown> {
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    const hash = blobHashOf(value);
    const found = hash ? blob(hash) : undefined;
    if (!found) return value;
    return `data:${found.mime};base64,${Buffer.from(found.bytes).toString('base64')}`;
  };
  return Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, inline(v)]));
}
