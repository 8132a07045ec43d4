import { afterEach, describe, expect, it } from 'vitest';
import { type StubOpenAI, startStubOpenAI, stubError } from '../../tests/support/stub-openai.ts';
import { OpenAICompatibleProvider } from './openai.ts';
import {
  BUILTIN_PROVIDER_NAMES,
  createChatProvider,
  listProviderProfiles,
  MissingKeyProvider,
  resolveProviderProfile,
} from './registry.ts';
import { SimulatedProvider } from './simulated.ts';
import type { ChatRequest } from './types.ts';
import { ProviderError } from './types.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const call = () => ({ signal: AbortSignal.timeout(10_000) });
const hello: ChatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] };

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject');
}

describe('provider profiles', () => {
  it('has the built-in profiles', () => {
    expect(BUILTIN_PROVIDER_NAMES).toEqual([
      'openai',
      'ollama',
      'lmstudio',
      'vllm',
      'llamacpp',
      'huggingface',
      'hf-inference',
      'simulated',
    ]);
    const env = {};
    expect(resolveProviderProfile('openai', { env })).toMatchObject({
      kind: 'openai-compatible',
      baseUrl: 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    expect(resolveProviderProfile('ollama', { env }).baseUrl).toBe('http://localhost:11434/v1');
    expect(resolveProviderProfile('lmstudio', { env }).baseUrl).toBe('http://localhost:1234/v1');
    expect(resolveProviderProfile('vllm', { env }).baseUrl).toBe('http://localhost:8000/v1');
    expect(resolveProviderProfile('llamacpp', { env }).baseUrl).toBe('http://localhost:8080/v1');
    expect(resolveProviderProfile('huggingface', { env })).toMatchObject({
      baseUrl: 'https://router.huggingface.co/v1',
      apiKeyEnv: 'HF_TOKEN',
    });
    expect(resolveProviderProfile('ollama', { env }).apiKeyEnv).toBeUndefined();
    expect(resolveProviderProfile('simulated', { env }).kind).toBe('simulated');
  });

  it('takes the OpenAI base URL from OPENAI_BASE_URL', () => {
    const env = { OPENAI_BASE_URL: 'https://proxy.example/v1' };
    expect(resolveProviderProfile('openai', { env }).baseUrl).toBe('https://proxy.example/v1');
  });

  it('lets overrides change and add profiles', () => {
    const overrides = {
      ollama: { baseUrl: 'http://gpu-box:11434/v1' },
      together: { baseUrl: 'https://api.together.xyz/v1', apiKeyEnv: 'TOGETHER_API_KEY' },
      offline: { kind: 'simulated' as const },
    };
    expect(resolveProviderProfile('ollama', { env: {}, overrides })).toMatchObject({
      name: 'ollama',
      baseUrl: 'http://gpu-box:11434/v1',
      concurrency: 2,
    });
    expect(resolveProviderProfile('together', { env: {}, overrides })).toEqual({
      name: 'together',
      kind: 'openai-compatible',
      baseUrl: 'https://api.together.xyz/v1',
      apiKeyEnv: 'TOGETHER_API_KEY',
    });
    expect(resolveProviderProfile('offline', { env: {}, overrides }).kind).toBe('simulated');
    expect(listProviderProfiles({ env: {}, overrides }).map((p) => p.name)).toEqual([
      ...BUILTIN_PROVIDER_NAMES,
      'together',
      'offline',
    ]);
  });

  it('explains unknown names and incomplete profiles', () => {
    expect(() => resolveProviderProfile('anthropic', { env: {} })).toThrow(
      'unknown provider "anthropic"; known providers: openai, ollama',
    );
    expect(() => resolveProviderProfile('mine', { env: {}, overrides: { mine: {} } })).toThrow(
      'provider "mine" needs a baseUrl',
    );
    expect(() =>
      resolveProviderProfile('mine', { env: {}, overrides: { mine: { baseUrl: 'not a url' } } }),
    ).toThrow('invalid baseUrl');
  });
});

describe('createChatProvider', () => {
  it('fails a call without a key before any request, naming the variable', async () => {
    stub = await startStubOpenAI();
    const env = { OPENAI_BASE_URL: stub.url };
    const provider = createChatProvider(resolveProviderProfile('openai', { env }), env);
    expect(provider).toBeInstanceOf(MissingKeyProvider);
    expect(provider.id).toBe('openai');
    const error = await rejection(provider.chat(hello, call()));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(error.message).toBe(
      'OPENAI_API_KEY is not set: export it, or run with --simulate or --replay CASSETTE',
    );
    expect(stub.count()).toBe(0);

    const hf = createChatProvider(resolveProviderProfile('huggingface', { env: {} }), {
      HF_TOKEN: '  ',
    });
    await expect(hf.chat(hello, call())).rejects.toThrow('HF_TOKEN is not set');
  });

  it('uses the key from the environment and never shows it', async () => {
    const key = 'sk-proj-registry-secret-999';
    stub = await startStubOpenAI({
      respond: (_body, { index, headers }) =>
        index === 0
          ? { text: 'hi' }
          : stubError(401, `Incorrect API key provided: ${headers.authorization}`, {
              code: 'invalid_api_key',
            }),
    });
    const env = { OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: key, OPENAI_ORG_ID: 'org-1' };
    const provider = createChatProvider(resolveProviderProfile('openai', { env }), env);
    expect(provider).toBeInstanceOf(OpenAICompatibleProvider);
    expect((await provider.chat(hello, call())).text).toBe('hi');
    expect(stub.headers[0]?.authorization).toBe(`Bearer ${key}`);
    expect(stub.headers[0]?.['openai-organization']).toBe('org-1');
    const error = await rejection(provider.chat(hello, call()));
    expect(error.message).not.toContain(key);
    expect(error.message).toContain('check the key in OPENAI_API_KEY');
  });

  it('reaches keyless local servers without a key and without OpenAI headers', async () => {
    stub = await startStubOpenAI();
    const env = { OPENAI_ORG_ID: 'org-1', OPENAI_API_KEY: 'sk-should-not-leak' };
    const profile = resolveProviderProfile('ollama', {
      env,
      overrides: { ollama: { baseUrl: stub.url } },
    });
    const provider = createChatProvider(profile, env);
    expect((await provider.chat(hello, call())).text).toBe('echo: hello');
    expect(stub.headers[0]?.authorization).toBe('Bearer no-key-needed');
    expect(stub.headers[0]?.['openai-organization']).toBeUndefined();
  });

  it('makes the simulated provider for simulated profiles', async () => {
    const provider = createChatProvider(resolveProviderProfile('simulated', { env: {} }), {});
    expect(provider).toBeInstanceOf(SimulatedProvider);
    expect((await provider.chat(hello, call())).simulated).toBe(true);
  });
});
