/** The preflight's reading of a plan: what each node can reach, and what a run of each kind needs. */
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../compiler/index.ts';
import { preflight, preflightMessage } from './preflight.ts';

/** Two copies of an agent whose profile is templated over its items, and an expert. */
const DOC = {
  version: 1,
  name: 'preflight',
  models: {
    local: { provider: 'ollama', model: 'llama3.1' },
    hosted: { provider: 'openai', model: 'gpt-4o-mini' },
  },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: {
        model: '{{ who }}',
        prompt: '{{ q }}',
        replicate: { items: ['local', 'hosted'], as: 'who' },
      },
    },
    {
      id: 'caption',
      type: 'expert',
      position: { x: 200, y: 200 },
      data: { module: 'text-summarization' },
    },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
    { id: 'e2', source: 'q', sourceHandle: 'value', target: 'caption', targetHandle: 'text' },
  ],
};

async function plan() {
  const compiled = await compileGraph(DOC);
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join('; '));
  return compiled.plan;
}

describe('preflight', () => {
  it('follows templated profiles over every copy and the providers nodes reach themselves', async () => {
    const check = preflight(await plan(), { env: { OPENAI_API_KEY: 'sk-0123456789' } });
    expect(check.providers.map((p) => [p.name, p.apiKeyEnv, p.set, p.nodes])).toEqual([
      ['ollama', undefined, true, ['a']],
      ['openai', 'OPENAI_API_KEY', true, ['a']],
      ['hf-inference', 'HF_TOKEN', false, ['caption']],
    ]);
    expect(check.missing).toEqual([
      { apiKeyEnv: 'HF_TOKEN', providers: ['hf-inference'], profiles: [], nodes: ['caption'] },
    ]);
    expect(preflightMessage(check, 'studio')).toBe(
      'nothing was sent: a key is not set: HF_TOKEN (provider "hf-inference", for node caption); add it in Settings → Keys, or use Run simulated (made-up answers, no key)',
    );
  });

  it('needs no key for a simulated run or a strict replay, every key for replay-then-live', async () => {
    const p = await plan();
    expect(preflight(p, { env: {}, simulate: true }).missing).toEqual([]);
    expect(preflight(p, { env: {}, cassetteMode: 'replay' }).missing).toEqual([]);
    const rest = preflight(p, { env: {}, cassetteMode: 'replay-then-live' });
    expect(rest.missing.map((m) => m.apiKeyEnv)).toEqual(['OPENAI_API_KEY', 'HF_TOKEN']);
  });

  it('leaves injected providers to their injector, and names a provider no one defined', async () => {
    const p = await plan();
    const injected = preflight(p, { env: {}, chatInjected: true, expertInjected: true });
    expect(injected.missing).toEqual([]);
    const unknown = preflight(p, {
      env: {},
      providerOverrides: { 'hf-inference': { kind: 'huggingface', apiKeyEnv: 'LAB_TOKEN' } },
    });
    expect(unknown.missing.map((m) => m.apiKeyEnv)).toEqual(['OPENAI_API_KEY', 'LAB_TOKEN']);
  });
});
