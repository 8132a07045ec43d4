/**
 * The factory that turns a provider profile into a ChatProvider. Profiles never hold keys: a key
 * is read from the environment variable the profile names when the provider is created, and a
 * missing key only fails when a call is actually made, so validating or inspecting a society
 * never needs one. The profiles themselves live in profiles.ts (re-exported here).
 */
import { OpenAICompatibleProvider } from './openai.ts';
import { type Env, missingKeyMessage } from './profiles.ts';
import { SimulatedProvider, type SimulatedProviderOptions } from './simulated.ts';
import type {
  CallOptions,
  ChatProvider,
  ChatRequest,
  ChatResult,
  ProviderProfile,
} from './types.ts';
import { ProviderError } from './types.ts';

export * from './profiles.ts';

/**
 * Stands in for a provider whose key is missing: creating it succeeds (so a society can be
 * validated and inspected), but every call fails at once, before any request is sent, with
 * a non-retryable error naming the variable.
 */
export class MissingKeyProvider implements ChatProvider {
  readonly id: string;
  readonly apiKeyEnv: string;
  constructor(id: string, apiKeyEnv: string) {
    this.id = id;
    this.apiKeyEnv = apiKeyEnv;
  }
  async chat(_request: ChatRequest, _options: CallOptions): Promise<ChatResult> {
    throw new ProviderError(missingKeyMessage(this.apiKeyEnv), {
      retryable: false,
      code: 'missing_api_key',
    });
  }
}

/**
 * Make the ChatProvider for a profile, reading its key (if it names one) from `env`; a
 * simulated profile's provider sees pictures with `simulated.see`.
 */
export function createChatProvider(
  profile: ProviderProfile,
  env: Env = process.env,
  simulated: Pick<SimulatedProviderOptions, 'see'> = {},
): ChatProvider {
  if (profile.kind === 'simulated')
    return new SimulatedProvider({ id: profile.name, ...simulated });
  if (profile.kind === 'huggingface') {
    throw new Error(
      `provider "${profile.name}" serves expert models, not chat; use an openai-compatible provider (such as "huggingface") for chat models`,
    );
  }
  if (!profile.baseUrl) throw new Error(`provider "${profile.name}" has no baseUrl`);
  let apiKey: string | undefined;
  if (profile.apiKeyEnv) {
    apiKey = env[profile.apiKeyEnv]?.trim() || undefined;
    if (!apiKey) return new MissingKeyProvider(profile.name, profile.apiKeyEnv);
  }
  // Organization and project headers only make sense for OpenAI's own API.
  const isOpenAI = profile.name === 'openai';
  return new OpenAICompatibleProvider({
    id: profile.name,
    baseUrl: profile.baseUrl,
    apiKey,
    apiKeyEnv: profile.apiKeyEnv,
    organization: isOpenAI ? env.OPENAI_ORG_ID || undefined : undefined,
    project: isOpenAI ? env.OPENAI_PROJECT_ID || undefined : undefined,
  });
}
