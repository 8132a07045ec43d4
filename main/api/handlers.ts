/**
 * The backend side of the editor's API (app/api/contract.ts): one handler per method, shared by
 * the loopback studio server and, later, Electron IPC. Every request's params are parsed with the
 * contract's schema before a handler sees them, and every result is checked against its schema
 * (a result that does not fit is a bug, and throws). Nothing a handler returns, and no run event
 * it forwards, holds a key: everything leaving here is redacted with the keys the environment and
 * the vault hold (S12, S13).
 *
 * Runs are recorded in the store exactly as `society run` records them (app/cli/main.ts): the
 * document, inputs and images, every event, the run's own record of calls, and how it ended.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import {
  type ApiContract,
  type ApiMethod,
  type ApiResult,
  BUILTIN_MODEL_DEFAULTS,
  contract,
  KEY_NAMES,
  type ModelDefaults,
  ModelDefaultsSchema,
  type RunEventPush,
} from '../../app/api/contract.ts';
import {
  type ProviderDestination,
  providerAddCommand,
  redirectsKey,
} from '../../app/api/provider-change.ts';
import { planFork } from '../../app/cli/fork.ts';
import { UsageError } from '../../app/cli/inputs.ts';
import {
  callRecorder,
  documentTextOf,
  expertRecorder,
  recordEvents,
  storeImages,
} from '../../app/cli/record.ts';
import { diffRuns } from '../../app/cli/runs.ts';
import { compileGraph } from '../../app/compiler/index.ts';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES, type PriceTable } from '../../app/costs/prices.ts';
import { loadNodeRegistry, type NodeRegistry } from '../../app/nodes/registry.ts';
import { Cassette } from '../../app/providers/cassette.ts';
import {
  builtinProfiles,
  type ProfileOverride,
  profileOverrides,
} from '../../app/providers/registry.ts';
import { type Redactor, secretsIn } from '../../app/providers/secrets.ts';
import { agentContext } from '../../app/runtime/agent-context.ts';
import { BlobStore, imageMimeFor } from '../../app/runtime/blobs.ts';
import type { Breakpoint } from '../../app/runtime/debugger.ts';
import { type Run, startRun } from '../../app/runtime/engine.ts';
import type { RunEvent, RunEventType } from '../../app/runtime/events.ts';
import {
  looksLikeKey,
  newRunId,
  parseProviderProfile,
  type RunRecord,
  type RunStore,
} from '../../app/store/index.ts';
import { createMemoryVault, type KeyStatus, type KeyVault, keyStatus } from '../secrets/vault.ts';
import { ApiError } from './errors.ts';
import { exportDocument } from './export.ts';
import { type ExampleImage, readPageInputs } from './run-inputs.ts';
import { listDocuments, readDocument, writeDocument } from './workspace.ts';

export { ApiError } from './errors.ts';
export { EXAMPLE_IMAGE } from './run-inputs.ts';

/** The templates shipped with the app. */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

const TEMPLATE_EXTENSION = '.society.json';
const IMAGE_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'webp'];

/**
 * Images are billed by size: the worst-case figure the CLI's `--estimate` uses for a large
 * image at high detail, so the editor shows the same estimate.
 */
const IMAGE_TOKENS = 1105;

/** Keys shorter than this cannot be redacted safely (app/providers/secrets.ts skips them). */
const MIN_KEY_LENGTH = 8;

/**
 * Variables the engine reads as configuration rather than as keys (app/providers/registry.ts):
 * a "key" entered for one of them would redirect or re-bill calls, so none may be set here.
 */
const NOT_KEYS = new Set(['OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID']);

/** The store setting that holds the editor's default models (settings.defaults.*). */
const MODEL_DEFAULTS_SETTING = 'editor.modelDefaults';

/** What the handlers work with. */
export interface ApiHandlersOptions {
  /** The run store runs are recorded in; the caller opens and closes it. */
  store: RunStore;
  /** The folder of documents `files.*` may list, read and write. */
  workspaceDir: string;
  /** Default: the repository's templates/. */
  templatesDir?: string;
  /** Default: an in-memory vault. */
  keys?: KeyVault;
  /** The environment runs see (keys from the vault are added). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default: the nodes/ folder's registry, loaded once. */
  registry?: NodeRegistry;
  /** Where to report what the page is not told (bugs, broken templates); lines are redacted. */
  log?: (line: string) => void;
  /**
   * Whether a request may change where a key is sent: add or change a provider profile so that
   * a key goes to a server, a kind or from a variable it does not now (app/api/provider-change.ts).
   * `allowed` only for a transport that nothing but the person's own window can reach, whose page
   * asks them first; anywhere a stolen token or cookie would do, one call could otherwise send
   * the user's key to the thief's server. Default: `refused`, with the command to run instead.
   */
  keyRedirects?: 'allowed' | 'refused';
}

/** A method's parsed params and its result, as its handler sees them. */
type Handler<M extends ApiMethod> = (
  params: z.output<ApiContract[M]['params']>,
) => Promise<ApiResult<M>>;

/** One handler per contract method. */
export type ApiImplementation = { [M in ApiMethod]: Handler<M> };

/** The API, ready to serve. */
export interface ApiHandlers {
  /**
   * Calls a method with unchecked params from the page: parses them, runs the handler, checks and
   * redacts the result. Throws an ApiError for a refused request (with `problems` for a document
   * that does not compile); any other error is a bug.
   */
  call(method: string, params: unknown): Promise<unknown>;
  /** The handlers themselves, for callers that already hold typed params. */
  readonly methods: ApiImplementation;
  /** Tells `listener` every event of every run, redacted. Returns the unsubscribe function. */
  onRunEvent(listener: (push: RunEventPush) => void): () => void;
  /** The key values to scrub from anything leaving the process, longest first. */
  secrets(): string[];
  /** What scrubs them: the store's redactor, for everything a transport sends or logs. */
  readonly redactor: Redactor;
  /** Ids of the runs still going. */
  running(): string[];
  /** Cancels the runs still going and waits until they are recorded. */
  close(): Promise<void>;
}

interface LiveRun {
  run: Run;
  /** Settles once the run's end is in the store. */
  done: Promise<void>;
}

/** Every event type, for checking `{ event }` breakpoints (a missing or extra type fails tsc). */
const EVENT_TYPES = new Set(
  Object.keys({
    'run.started': true,
    'run.finished': true,
    'node.started': true,
    'node.finished': true,
    'node.failed': true,
    'model.request': true,
    'model.delta': true,
    'model.response': true,
    'model.retry': true,
    'model.error': true,
    'expert.request': true,
    'expert.response': true,
    'expert.error': true,
    'subgraph.started': true,
    'subgraph.finished': true,
    'environment.step': true,
    message: true,
    'round.started': true,
    'round.finished': true,
    vote: true,
    'human.request': true,
    'human.response': true,
    paused: true,
    resumed: true,
    error: true,
  } satisfies Record<RunEventType, true>),
);

/** Creates the API's handlers over a store, a workspace folder, the templates and a key vault. */
export function createApiHandlers(options: ApiHandlersOptions): ApiHandlers {
  const { store, workspaceDir, keyRedirects = 'refused' } = options;
  const templatesDir = options.templatesDir ?? DEFAULT_TEMPLATES_DIR;
  const keys = options.keys ?? createMemoryVault();
  const baseEnv = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let registry: Promise<NodeRegistry> | undefined = options.registry
    ? Promise.resolve(options.registry)
    : undefined;
  const nodeRegistry = () => {
    registry ??= loadNodeRegistry();
    return registry;
  };
  const listeners = new Set<(push: RunEventPush) => void>();
  const live = new Map<string, LiveRun>();

  // Runs a crashed studio or CLI left "running" are interrupted; ours are not started yet.
  store.markInterrupted();

  /** Provider profiles added with `society providers --add`, as the CLI applies them. */
  const storedOverrides = (): Record<string, ProfileOverride> =>
    profileOverrides(store.listProviderProfiles());

  /** The environment runs see: the process's, with the keys entered in settings over it. */
  const runEnv = (): NodeJS.ProcessEnv => ({ ...baseEnv, ...keys.values() });

  /**
   * The one redactor of this backend: the store's, which scrubs everything written to the
   * database, and the same one every event, result and log line sent to the page passes through.
   * It learns the key values again after anything that can add one: a key set, a provider saved
   * or removed, a run started (a provider added from the CLI meanwhile is picked up there). It
   * never forgets one: a run started before a key was cleared may still be echoing it.
   */
  const redactor = store.redactor;
  const secretsChanged = () => {
    const env = runEnv();
    redactor.add(
      secretsIn(env, [
        ...KEY_NAMES,
        ...Object.keys(keys.values()),
        ...Object.values(storedOverrides()).map((o) => o.apiKeyEnv ?? ''),
      ]),
    );
  };
  secretsChanged();
  const secrets = (): string[] => [...redactor.secrets];

  const prices = (): PriceTable => ({ ...DEFAULT_PRICES, ...store.priceTable() });

  /**
   * The variables a key may be entered for: the built-in providers', then each custom profile's
   * (sorted), never a variable the engine reads as configuration.
   */
  const keyNames = (): string[] => {
    const custom = store
      .listProviderProfiles()
      .flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : []))
      .sort();
    return [...new Set<string>([...KEY_NAMES, ...custom])].filter((n) => !NOT_KEYS.has(n));
  };

  const checkKeyName = (method: string, name: string) => {
    if (!keyNames().includes(name)) {
      // Phrased like a params error: the name is the bad parameter, and only the store knows it.
      throw new ApiError(
        `invalid params for ${method}: name: no provider reads its key from ${name} (keys: ${keyNames().join(', ')})`,
      );
    }
  };

  /** A key entered in settings wins; else one from the backend's own environment. */
  const keyStatusOf = (name: string): KeyStatus => {
    const status = keys.status(name);
    if (status.configured) return status;
    const fromEnv = baseEnv[name];
    return fromEnv ? { ...keyStatus(name, fromEnv), source: 'environment' } : status;
  };

  const providerList = (): ApiResult<'settings.providers.list'> => ({
    builtin: Object.values(builtinProfiles(baseEnv)),
    custom: store.listProviderProfiles(),
  });

  const priceRows = (): ApiResult<'settings.prices.get'> => {
    const own = store.priceTable();
    const table = { ...DEFAULT_PRICES, ...own };
    return Object.entries(table)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([model, price]) => {
        const builtin = Object.hasOwn(DEFAULT_PRICES, model) ? DEFAULT_PRICES[model] : undefined;
        return {
          model,
          inputPerMillion: price.inputPerMillion,
          outputPerMillion: price.outputPerMillion,
          ...(builtin ? { default: { ...builtin } } : {}),
          overridden: Object.hasOwn(own, model),
        };
      });
  };

  const modelDefaults = (): ModelDefaults => {
    const stored = ModelDefaultsSchema.safeParse(store.getSetting(MODEL_DEFAULTS_SETTING));
    // A value a newer or broken build wrote falls back to the built-in defaults.
    return stored.success ? stored.data : BUILTIN_MODEL_DEFAULTS;
  };

  const publish = (runId: string, event: RunEvent) => {
    // Recorded events are already redacted with the run's keys; a key entered since is too.
    const push: RunEventPush = {
      push: 'run.event',
      runId,
      event: redactor.apply(event) as unknown as Record<string, unknown>,
    };
    for (const listener of listeners) {
      try {
        listener(push);
      } catch (error) {
        log(redactor.text(`society studio: a run event listener failed: ${messageOf(error)}`));
      }
    }
  };

  /** The template files, by file name. */
  const templateFiles = async (): Promise<string[]> => {
    try {
      return (await readdir(templatesDir))
        .filter((f) => f.endsWith(TEMPLATE_EXTENSION))
        .sort((a, b) => a.localeCompare(b));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };

  /**
   * A template's base name (`nlsom-vqa`) from its file name or base name, if it is one of the
   * templates; never a path.
   */
  const templateBase = async (name: string): Promise<string> => {
    const file = name.endsWith(TEMPLATE_EXTENSION) ? name : `${name}${TEMPLATE_EXTENSION}`;
    const files = await templateFiles();
    if (!files.includes(file)) {
      throw new ApiError(
        `there is no template "${name}"${files.length ? ` (templates: ${files.join(', ')})` : ''}`,
      );
    }
    return file.slice(0, -TEMPLATE_EXTENSION.length);
  };

  const exampleImage =
    (base: string): ExampleImage =>
    () => {
      // A template's own example, else its family's: openagi-auto-plan → openagi.example.png.
      const names = [base, base.split('-')[0]!].flatMap((name) =>
        IMAGE_EXTENSIONS.map((ext) => `${name}.example.${ext}`),
      );
      for (const name of names) {
        const file = path.join(templatesDir, name);
        if (existsSync(file)) {
          // Read synchronously: inputs are read before the run starts, and the file is small.
          return { bytes: new Uint8Array(readFileSync(file)), mime: imageMimeFor(file)! };
        }
      }
      return undefined;
    };

  const findLive = (runId: string): LiveRun => {
    const entry = live.get(runId);
    if (entry) return entry;
    let stored: ReturnType<RunStore['getRun']>;
    try {
      stored = store.getRun(runId);
    } catch {
      stored = undefined;
    }
    if (stored && stored.id === runId)
      throw new ApiError(`run ${runId} is not running here (it is ${stored.status})`);
    throw new ApiError(`there is no running run "${runId}"`);
  };

  /**
   * Records a started run in the store and pushes its events to the page. `prior` is the part
   * of a parent's log a fork keeps: written first, and pushed first so the page sees it too.
   */
  const track = (run: Run, prior: RunEvent[] = []) => {
    const runId = run.id;
    // The page learns the run id from this method's response, so its events are held until
    // the response has gone out (the server sends it before the next turn of the event loop).
    let announced = false;
    const held: RunEvent[] = prior.map((event) => ({ ...event, runId }));
    const deliver = (event: RunEvent) => {
      if (announced) publish(runId, event);
      else held.push(event);
    };
    setImmediate(() => {
      announced = true;
      for (const event of held.splice(0)) publish(runId, event);
    });
    // run.finished is told once the store has the run's end, so a page that reacts to it by
    // reading the run finds it finished.
    let finished: RunEvent | undefined;
    const finish = recordEvents(
      store,
      run,
      (event) => {
        if (event.type === 'run.finished') finished = event;
        else deliver(event);
      },
      prior,
    );
    const done = run.result.then((result) => {
      try {
        finish(result);
      } catch (error) {
        log(
          redactor.text(
            `society studio: cannot record the end of run ${runId}: ${messageOf(error)}`,
          ),
        );
      }
      live.delete(runId);
      if (finished) deliver(finished);
    });
    live.set(runId, { run, done });
  };

  /**
   * Removes a custom profile, and the key entered for its variable unless another provider
   * still reads it: a key nobody can see in settings any more should not linger in the vault.
   */
  const forgetProvider = async (name: string) => {
    const variable = store.getProviderProfile(name)?.apiKeyEnv;
    store.deleteProviderProfile(name);
    if (variable && !keyNames().includes(variable)) await keys.clear(variable);
    secretsChanged();
  };

  /** A stored run by id or unique prefix; a refusal the page can show otherwise. */
  const storedRun = (runId: string): RunRecord => {
    let run: RunRecord | undefined;
    try {
      run = store.getRun(runId);
    } catch (error) {
      throw new ApiError(messageOf(error));
    }
    if (!run) throw new ApiError(`there is no run "${runId}"`);
    return run;
  };

  const methods: ApiImplementation = {
    async 'templates.list'() {
      const registry = await nodeRegistry();
      const table = prices();
      const list: ApiResult<'templates.list'> = [];
      for (const file of await templateFiles()) {
        const base = file.slice(0, -TEMPLATE_EXTENSION.length);
        const text = await readFile(path.join(templatesDir, file), 'utf8');
        const compiled = await compileGraph(text, registry);
        if (!compiled.ok) {
          // A broken template is the app's bug; the others are still offered.
          log(
            `society studio: template ${file} does not compile: ${compiled.problems[0]?.message}`,
          );
          continue;
        }
        const estimate = estimateRun(compiled.plan, table, { imageTokens: IMAGE_TOKENS });
        const providers = [
          ...new Set(Object.values(compiled.doc.models ?? {}).map((m) => m.provider)),
        ].sort();
        list.push({
          file,
          name: compiled.doc.name,
          description: compiled.doc.description ?? '',
          providers,
          estimate: {
            calls: estimate.calls,
            tokens: estimate.promptTokens + estimate.completionTokens,
            costUsd: estimate.costUsd,
          },
          hasCassette: existsSync(path.join(templatesDir, `${base}.cassette.json`)),
        });
      }
      return list;
    },

    async 'templates.open'({ file }) {
      const files = await templateFiles();
      // Only names from the list: a path, or anything else, is refused (S9).
      if (!files.includes(file)) throw new ApiError(`there is no template "${file}"`);
      return { text: await readFile(path.join(templatesDir, file), 'utf8') };
    },

    async 'document.validate'({ document }) {
      const compiled = await compileGraph(document, await nodeRegistry());
      return { ok: compiled.ok, problems: compiled.ok ? [] : compiled.problems };
    },

    async 'document.compile'({ document }) {
      const compiled = await compileGraph(document, await nodeRegistry());
      return compiled.ok
        ? { ok: true, problems: [], machines: compiled.machines }
        : { ok: false, problems: compiled.problems };
    },

    async 'document.export'({ document }) {
      return exportDocument(document, {
        registry: await nodeRegistry(),
        prices: prices(),
        customProviders: store.listProviderProfiles(),
        secrets: secrets(),
        imageTokens: IMAGE_TOKENS,
      });
    },

    async 'files.list'() {
      return listDocuments(workspaceDir);
    },

    async 'files.read'({ name }) {
      return { text: await readDocument(workspaceDir, name) };
    },

    async 'files.write'({ name, text }) {
      await writeDocument(workspaceDir, name, text);
      return { name };
    },

    async 'run.start'(params) {
      if (params.simulate && params.replayTemplate) {
        throw new ApiError(
          'simulate and replayTemplate exclude each other: a replay answers from the cassette',
        );
      }
      const registry = await nodeRegistry();
      const compiled = await compileGraph(params.document, registry);
      if (!compiled.ok) throw new ApiError('the document has problems', compiled.problems);
      const breakpoints = toBreakpoints(params.breakpoints);

      let cassette: Cassette | undefined;
      let example: ExampleImage | undefined;
      if (params.replayTemplate !== undefined) {
        const base = await templateBase(params.replayTemplate);
        const file = path.join(templatesDir, `${base}.cassette.json`);
        if (!existsSync(file)) throw new ApiError(`template "${base}" ships no cassette to replay`);
        try {
          cassette = await Cassette.load(file);
        } catch (error) {
          throw new ApiError(`cannot replay template "${base}": ${messageOf(error)}`);
        }
        example = exampleImage(base);
      }

      const blobs = new BlobStore();
      const { inputs, humanAnswers } = readPageInputs(params.inputs, compiled.plan, blobs, example);
      const env = runEnv();
      secretsChanged();
      const runId = newRunId();
      const overrides = storedOverrides();
      store.markInterrupted();
      store.createRun({
        id: runId,
        document: compiled.doc,
        documentText: documentTextOf(compiled),
        compilerVersion: compiled.machines.compilerVersion,
        mode: cassette ? 'replay' : params.simulate ? 'simulated' : 'live',
        inputs,
      });
      storeImages(store, blobs, inputs);
      store.saveGraph(compiled.doc, documentTextOf(compiled));

      const run = startRun(compiled, {
        registry,
        runId,
        inputs,
        humanAnswers,
        blobs,
        prices: prices(),
        simulate: params.simulate,
        ...(cassette ? { cassette: { cassette, mode: 'replay' as const } } : {}),
        providerOverrides: overrides,
        env,
        breakpoints,
        startPaused: params.startPaused,
        redactor,
        onModelCall: callRecorder(store, runId),
        onExpertCall: expertRecorder(store, runId),
      });

      track(run);
      return { runId };
    },

    async 'run.control'({ runId, action, step }) {
      const { run } = findLive(runId);
      if (action === 'pause') run.pause();
      else if (action === 'resume') run.resume();
      else if (action === 'step') run.step(step ?? 'node');
      else run.cancel();
      return { paused: run.paused };
    },

    async 'run.breakpoints'({ runId, breakpoints }) {
      const { run } = findLive(runId);
      run.setBreakpoints(toBreakpoints(breakpoints));
      return {};
    },

    async 'run.editHeld'(params) {
      const { run } = findLive(params.runId);
      try {
        if (params.kind === 'message') run.editMessage(params.instance, params.text);
        else run.overrideOutput(params.instance, params.outputs);
      } catch (error) {
        // Nothing of that instance is held (any more): the page's view is behind the run.
        throw new ApiError(messageOf(error));
      }
      return { kind: params.kind, instance: params.instance };
    },

    async 'run.context'({ runId, instance, callId }) {
      // A running run's own log (a fork's includes what it kept), else the stored one.
      const events = live.get(runId)?.run.events ?? store.events(storedRun(runId).id);
      return agentContext(events, instance, callId);
    },

    async 'runs.list'({ limit }) {
      return store.listRuns({ limit }).map((r) => ({
        id: r.id,
        graph: r.graph,
        status: r.status,
        startedAt: r.startedAt,
        calls: r.calls,
        tokens: r.tokens,
        ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
        mode: r.mode,
        ...(r.parentRunId !== undefined ? { parentRunId: r.parentRunId } : {}),
      }));
    },

    async 'runs.fork'({ runId, edits, at, simulate, breakpoints }) {
      const parent = storedRun(runId);
      if (live.has(parent.id)) {
        throw new ApiError(`run ${parent.id} is still going: fork it once it has ended`);
      }
      const registry = await nodeRegistry();
      const compiled = await compileGraph(parent.documentText, registry);
      if (!compiled.ok) {
        throw new ApiError(`run ${parent.id} no longer compiles`, compiled.problems);
      }
      let plan: ReturnType<typeof planFork>;
      try {
        plan = planFork(store, parent, compiled, {
          edits: Object.fromEntries(edits.map((e) => [e.instance, e.text])),
          ...(at === undefined ? {} : { at }),
        });
      } catch (error) {
        if (error instanceof UsageError) throw new ApiError(error.message.replace('--at', 'at'));
        throw error;
      }
      secretsChanged();
      const forkId = newRunId();
      store.markInterrupted();
      store.createRun({ id: forkId, ...plan.record });
      const run = startRun(compiled, {
        registry,
        runId: forkId,
        ...plan.options,
        prices: prices(),
        simulate: simulate || plan.simulated,
        providerOverrides: storedOverrides(),
        env: runEnv(),
        breakpoints: toBreakpoints(breakpoints),
        redactor,
        onModelCall: callRecorder(store, forkId),
        onExpertCall: expertRecorder(store, forkId),
      });
      track(run, plan.kept);
      return { runId: forkId, parentRunId: parent.id, forkSeq: plan.at - 1 };
    },

    async 'runs.diff'({ a, b }) {
      const left = storedRun(a);
      const right = storedRun(b);
      return diffRuns(left, store.events(left.id), right, store.events(right.id));
    },

    async 'runs.delete'({ runId }) {
      if (live.has(runId)) {
        throw new ApiError(`run ${runId} is still going: stop it before deleting it`);
      }
      return { deleted: store.deleteRun(runId) };
    },

    async 'runs.show'({ runId }) {
      const run = storedRun(runId);
      return {
        run: { ...run } as Record<string, unknown>,
        events: store.events(run.id) as unknown as Array<Record<string, unknown>>,
      };
    },

    async 'settings.keys'() {
      return keyNames().map(keyStatusOf);
    },

    async 'settings.setKey'({ name, value }) {
      checkKeyName('settings.setKey', name);
      const key = value.trim();
      if (key.length < MIN_KEY_LENGTH || /\s/.test(key)) {
        // Shorter values could not be scrubbed from logs and events without mangling them.
        throw new ApiError(
          `that does not look like a key for ${name}: keys are at least ${MIN_KEY_LENGTH} characters with no spaces`,
        );
      }
      await keys.set(name, key);
      secretsChanged();
      return keys.status(name);
    },

    async 'settings.clearKey'({ name }) {
      checkKeyName('settings.clearKey', name);
      await keys.clear(name);
      secretsChanged();
      return keyStatusOf(name);
    },

    async 'settings.providers.list'() {
      return providerList();
    },

    async 'settings.providers.save'({ name, baseUrl, apiKeyEnv, concurrency, previousName }) {
      const renaming = previousName !== undefined && previousName !== name;
      if (previousName !== undefined && !store.getProviderProfile(previousName)) {
        throw new ApiError(`there is no provider "${previousName}" of yours to change`);
      }
      if ((previousName === undefined || renaming) && store.getProviderProfile(name)) {
        throw new ApiError(`you already have a provider called "${name}": edit that one`);
      }
      if (apiKeyEnv !== undefined && NOT_KEYS.has(apiKeyEnv)) {
        throw new ApiError(
          `provider "${name}": ${apiKeyEnv} configures the openai provider; name the variable that holds the key`,
        );
      }
      const profile = {
        name,
        kind: 'openai-compatible' as const,
        baseUrl,
        ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
        ...(concurrency !== undefined ? { concurrency } : {}),
      };
      try {
        // The same validation as `society providers --add` (app/store/secrets.ts).
        parseProviderProfile(profile);
      } catch (error) {
        throw new ApiError(messageOf(error));
      }
      if (keyRedirects !== 'allowed') {
        const before = store.getProviderProfile(name) ?? builtinProfiles(baseEnv)[name];
        if (redirectsKey(before, profile)) throw new ApiError(keyRedirectRefusal(before, profile));
      }
      try {
        store.saveProviderProfile(profile);
      } catch (error) {
        throw new ApiError(messageOf(error));
      }
      secretsChanged();
      if (renaming) await forgetProvider(previousName);
      return providerList();
    },

    async 'settings.providers.remove'({ name }) {
      if (!store.getProviderProfile(name)) {
        throw new ApiError(
          Object.hasOwn(builtinProfiles(baseEnv), name)
            ? `"${name}" is built in and cannot be removed`
            : `there is no provider "${name}" of yours`,
        );
      }
      await forgetProvider(name);
      return providerList();
    },

    async 'settings.prices.get'() {
      return priceRows();
    },

    async 'settings.prices.set'({ model, inputPerMillion, outputPerMillion }) {
      if (looksLikeKey(model)) {
        throw new ApiError('that model id looks like a key; prices are kept by model id');
      }
      store.setPrice(model, { inputPerMillion, outputPerMillion });
      return priceRows();
    },

    async 'settings.prices.reset'({ model }) {
      if (!store.deletePrice(model)) {
        throw new ApiError(`"${model}" has no price of yours to reset`);
      }
      return priceRows();
    },

    async 'settings.defaults.get'() {
      return modelDefaults();
    },

    async 'settings.defaults.set'(defaults) {
      const known = new Set([
        ...Object.keys(builtinProfiles(baseEnv)),
        ...store.listProviderProfiles().map((p) => p.name),
      ]);
      for (const [use, choice] of Object.entries(defaults)) {
        if (!known.has(choice.provider)) {
          throw new ApiError(
            `${use}: there is no provider "${choice.provider}" (providers: ${[...known].join(', ')})`,
          );
        }
      }
      try {
        store.setSetting(MODEL_DEFAULTS_SETTING, defaults);
      } catch (error) {
        throw new ApiError(messageOf(error));
      }
      return modelDefaults();
    },
  };

  return {
    methods,
    async call(method, params) {
      if (!Object.hasOwn(contract, method)) throw new ApiError(`unknown method "${method}"`);
      const m = method as ApiMethod;
      const parsed = contract[m].params.safeParse(params ?? {});
      if (!parsed.success) {
        const issues = parsed.error.issues
          .slice(0, 5)
          .map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`)
          .join('; ');
        throw new ApiError(`invalid params for ${method}: ${issues}`);
      }
      const handler = methods[m] as (params: unknown) => Promise<unknown>;
      const result = await handler(parsed.data);
      const checked = contract[m].result.safeParse(result);
      if (!checked.success) {
        throw new Error(
          `bug: the result of ${method} does not match the contract: ${checked.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.')}: ${i.message}`)
            .join('; ')}`,
        );
      }
      return redactor.apply(checked.data);
    },
    onRunEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    secrets,
    redactor,
    running: () => [...live.keys()],
    async close() {
      const runs = [...live.values()];
      for (const { run } of runs) run.cancel();
      await Promise.all(runs.map((r) => r.done));
    },
  };
}

/** The contract's breakpoints as the debugger's; an unknown event type is refused. */
function toBreakpoints(
  breakpoints: z.output<ApiContract['run.breakpoints']['params']>['breakpoints'],
): Breakpoint[] {
  return breakpoints.map((b) => {
    if ('event' in b) {
      if (!EVENT_TYPES.has(b.event)) {
        throw new ApiError(
          `breakpoint event "${b.event}" is not a run event type (one of: ${[...EVENT_TYPES].join(', ')})`,
        );
      }
      return { event: b.event as RunEventType };
    }
    if ('message' in b) {
      return {
        message: {
          ...(b.message.from !== undefined ? { from: b.message.from } : {}),
          ...(b.message.contains !== undefined ? { contains: b.message.contains } : {}),
        },
      };
    }
    if ('round' in b) return { round: b.round, ...(b.loop !== undefined ? { loop: b.loop } : {}) };
    return { node: b.node };
  });
}

/** Why a change of where a key goes is refused here, and how to make it instead. */
function keyRedirectRefusal(
  before: ProviderDestination | undefined,
  after: ProviderDestination & { name: string; concurrency?: number },
): string {
  const variable = after.apiKeyEnv ?? before?.apiKeyEnv;
  const change = before
    ? `changing where provider "${after.name}" points, which uses the key in ${variable},`
    : `adding provider "${after.name}", which sends the key in ${variable},`;
  return `${change} cannot be done from this page (anything that got hold of its access could send your key to its own server): run \`${providerAddCommand(after.name, after)}\` in a terminal, or use the desktop app`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
