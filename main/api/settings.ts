/**
 * The rest of the settings page: custom providers (`settings.providers.*`), model prices
 * (`settings.prices.*`) and the editor's default models (`settings.defaults.*`). Keys are in
 * keys.ts.
 */
import {
  type ApiResult,
  BUILTIN_MODEL_DEFAULTS,
  type ModelDefaults,
  ModelDefaultsSchema,
} from '../../app/api/contract.ts';
import {
  type ProviderDestination,
  providerAddCommand,
  redirectsKey,
} from '../../app/api/provider-change.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { builtinProfiles } from '../../app/providers/registry.ts';
import { looksLikeKey, parseProviderProfile } from '../../app/store/index.ts';
import { type ApiContext, type ApiMethods, messageOf, NOT_KEYS } from './context.ts';
import { ApiError } from './errors.ts';

/** The store setting that holds the editor's default models (settings.defaults.*). */
const MODEL_DEFAULTS_SETTING = 'editor.modelDefaults';

/** The provider, price and default-model methods of `settings.*`. */
export function settingsMethods(
  ctx: ApiContext,
): ApiMethods<
  | 'settings.providers.list'
  | 'settings.providers.save'
  | 'settings.providers.remove'
  | 'settings.prices.get'
  | 'settings.prices.set'
  | 'settings.prices.reset'
  | 'settings.defaults.get'
  | 'settings.defaults.set'
> {
  const { store, keys, baseEnv, keyRedirects } = ctx;

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

  /**
   * Removes a custom profile, and the key entered for its variable unless another provider
   * still reads it: a key nobody can see in settings any more should not linger in the vault.
   */
  const forgetProvider = async (name: string) => {
    const variable = store.getProviderProfile(name)?.apiKeyEnv;
    store.deleteProviderProfile(name);
    if (variable && !ctx.keyNames().includes(variable)) await keys.clear(variable);
    ctx.secretsChanged();
  };

  return {
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
      ctx.secretsChanged();
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
