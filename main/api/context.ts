/**
 * What every group of API methods works with (the handlers are split by concern: templates.ts,
 * documents.ts, runs.ts, history.ts, keys.ts, settings.ts; handlers.ts composes them): the
 * store, the workspace, the key vault, the node registry, and the one redactor that scrubs
 * everything leaving the backend.
 */
import type { z } from 'zod';
import {
  type ApiContract,
  type ApiMethod,
  type ApiResult,
  KEY_NAMES,
} from '../../app/api/contract.ts';
import { DEFAULT_PRICES, type PriceTable } from '../../app/costs/prices.ts';
import { loadNodeRegistry, type NodeRegistry } from '../../app/node-sdk/registry.ts';
import { type ProfileOverride, profileOverrides } from '../../app/providers/registry.ts';
import { type Redactor, secretsIn } from '../../app/providers/secrets.ts';
import type { RunStore } from '../../app/store/index.ts';
import { createMemoryVault, type KeyVault } from '../secrets/vault.ts';

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
  /**
   * Asks the person a yes-or-no question in a dialog of the host's own (the desktop app's native
   * one), resolving to their answer. Only a host whose dialog a page cannot answer for the
   * person has one; without it, what needs their confirm (adding a server that runs a program)
   * is refused with the terminal command to run instead.
   */
  confirm?: (message: string) => Promise<boolean>;
}

/** A method's parsed params and its result, as its handler sees them. */
type Handler<M extends ApiMethod> = (
  params: z.output<ApiContract[M]['params']>,
) => Promise<ApiResult<M>>;

/** One handler per contract method. */
export type ApiImplementation = { [M in ApiMethod]: Handler<M> };

/** The handlers of some of the contract's methods: one concern's share of `ApiImplementation`. */
export type ApiMethods<M extends ApiMethod> = Pick<ApiImplementation, M>;

/** The worst-case tokens of one image, the figure the CLI's `--estimate` uses too. */
export { IMAGE_TOKENS } from '../../app/providers/tokens.ts';

/**
 * Variables the engine reads as configuration rather than as keys (app/providers/registry.ts):
 * a "key" entered for one of them would redirect or re-bill calls, so none may be set here.
 */
export const NOT_KEYS = new Set(['OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID']);

/** The shared state and helpers of one backend's handlers. */
export interface ApiContext {
  readonly store: RunStore;
  readonly workspaceDir: string;
  readonly templatesDir: string;
  readonly keys: KeyVault;
  /** The backend's own environment, without the keys entered in settings. */
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly keyRedirects: 'allowed' | 'refused';
  /** The host's confirm dialog (ApiHandlersOptions.confirm), when it has one. */
  readonly confirm?: (message: string) => Promise<boolean>;
  readonly log: (line: string) => void;
  /** The node registry, loaded on first use. */
  nodeRegistry(): Promise<NodeRegistry>;
  /**
   * The one redactor of this backend: the store's, which scrubs everything written to the
   * database, and the same one every event, result and log line sent to the page passes through.
   */
  readonly redactor: Redactor;
  /**
   * Teaches the redactor the key values again. Called after anything that can add one: a key
   * set, a provider saved or removed, a run started (a provider added from the CLI meanwhile is
   * picked up there). It never forgets one: a run started before a key was cleared may still
   * be echoing it.
   */
  secretsChanged(): void;
  /** The key values to scrub, longest first. */
  secrets(): string[];
  /** The environment runs see: the process's, with the keys entered in settings over it. */
  runEnv(): NodeJS.ProcessEnv;
  /** Provider profiles added with `society providers --add`, as the CLI applies them. */
  storedOverrides(): Record<string, ProfileOverride>;
  /** The built-in prices with the user's over them. */
  prices(): PriceTable;
  /**
   * The variables a key may be entered for: the built-in providers', then each custom profile's
   * (sorted), never a variable the engine reads as configuration.
   */
  keyNames(): string[];
}

/** The default templates folder is given by handlers.ts, which knows where the app ships them. */
export function createApiContext(options: ApiHandlersOptions, templatesDir: string): ApiContext {
  const { store, workspaceDir, keyRedirects = 'refused' } = options;
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

  const storedOverrides = (): Record<string, ProfileOverride> =>
    profileOverrides(store.listProviderProfiles());
  const runEnv = (): NodeJS.ProcessEnv => ({ ...baseEnv, ...keys.values() });

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

  const keyNames = (): string[] => {
    const custom = store
      .listProviderProfiles()
      .flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : []))
      .sort();
    return [...new Set<string>([...KEY_NAMES, ...custom])].filter((n) => !NOT_KEYS.has(n));
  };

  return {
    store,
    workspaceDir,
    templatesDir,
    keys,
    baseEnv,
    keyRedirects,
    ...(options.confirm ? { confirm: options.confirm } : {}),
    log,
    nodeRegistry,
    redactor,
    secretsChanged,
    secrets: () => [...redactor.secrets],
    runEnv,
    storedOverrides,
    prices: () => ({ ...DEFAULT_PRICES, ...store.priceTable() }),
    keyNames,
  };
}

/** An error's message, for a refusal or a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
