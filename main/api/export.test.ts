import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../../app/compiler/index.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { loadNodeRegistry } from '../../app/node-sdk/registry.ts';
import { IMAGE_TOKENS } from '../../app/providers/tokens.ts';
import { ApiError } from './errors.ts';
import { exportDocument } from './export.ts';

const VQA = JSON.parse(
  readFileSync(new URL('../../templates/nlsom-vqa.society.json', import.meta.url), 'utf8'),
);
const registry = await loadNodeRegistry();
const options = {
  registry,
  prices: DEFAULT_PRICES,
  customProviders: [],
  secrets: [],
  imageTokens: IMAGE_TOKENS,
  now: new Date('2026-11-22T10:00:00Z'),
};

describe('exporting a document', () => {
  it('adds a manifest of the providers, keys, models and inputs it needs', async () => {
    const { text, manifest } = await exportDocument(VQA, options);
    expect(manifest.providers).toEqual([
      { name: 'openai', builtin: true, keyVariable: 'OPENAI_API_KEY' },
    ]);
    expect(manifest.models.map((m) => m.profile).sort()).toEqual(Object.keys(VQA.models).sort());
    expect(manifest.models.filter((m) => m.vision).length).toBeGreaterThan(0);
    expect(manifest.inputs).toEqual([
      { name: 'question', modality: 'text', required: true },
      { name: 'image', modality: 'image', required: true },
    ]);
    expect(manifest.nodeTypes).toEqual(['agent', 'input', 'mindstorm', 'output', 'summarize']);
    expect(manifest.problems).toBe(0);
    // 17 calls, as the CLI's --estimate counts them.
    expect(manifest.estimate?.calls).toBe(17);
    expect(manifest.estimate?.costUsd).toBeGreaterThan(0);
    expect(manifest.exportedAt).toBe('2026-11-22T10:00:00.000Z');

    // The file is still an ordinary document: it opens and compiles, manifest and all.
    const again = await compileGraph(text, registry);
    expect(again.ok).toBe(true);
    const reexported = await exportDocument(JSON.parse(text), options);
    expect(reexported.text).toBe(text);
  });

  it('counts a sub-society’s calls and node types, and keeps its library', async () => {
    const doc = JSON.parse(
      readFileSync(
        new URL('../../templates/nlsom-artist-critic.society.json', import.meta.url),
        'utf8',
      ),
    );
    const { text, manifest } = await exportDocument(doc, options);
    expect(manifest.nodeTypes).toEqual(
      expect.arrayContaining(['mindstorm', 'society', 'transform']),
    );
    expect(manifest.inputs.map((i) => i.name)).toEqual(['object']);
    // 26 artists × 8 calls inside the library graph, 50 critics, the collector, the painter.
    expect(manifest.estimate?.calls).toBe(260);
    expect(JSON.parse(text).graphs).toEqual(doc.graphs);
  });

  it('names Hugging Face for expert models, which reach it without a model profile', async () => {
    const restoration = JSON.parse(
      readFileSync(
        new URL('../../templates/openagi-image-restoration.society.json', import.meta.url),
        'utf8',
      ),
    );
    const { manifest } = await exportDocument(restoration, options);
    expect(manifest.providers).toEqual([
      { name: 'hf-inference', builtin: true, keyVariable: 'HF_TOKEN' },
    ]);
    // Experts that all run locally need no provider at all.
    for (const node of restoration.nodes)
      if (node.type === 'expert') node.data = { ...node.data, backend: 'local' };
    const local = await exportDocument(restoration, options);
    expect(local.manifest.providers).toEqual([]);
  });

  it('names the key variable of a custom provider, and says what does not compile', async () => {
    const doc = structuredClone(VQA);
    doc.models.organizer = { provider: 'lab', model: 'my-model' };
    doc.nodes = doc.nodes.filter((n: { id: string }) => n.id !== 'question');
    const { manifest } = await exportDocument(doc, {
      ...options,
      customProviders: [
        {
          name: 'lab',
          kind: 'openai-compatible',
          baseUrl: 'http://10.0.0.5/v1',
          apiKeyEnv: 'LAB_TOKEN',
        },
      ],
    });
    expect(manifest.providers).toContainEqual({
      name: 'lab',
      builtin: false,
      keyVariable: 'LAB_TOKEN',
    });
    expect(manifest.problems).toBeGreaterThan(0);
    expect(manifest.estimate).toBeUndefined();
  });

  it('refuses a document holding a key, naming where, and never repeating it', async () => {
    const doc = structuredClone(VQA);
    const organizer = doc.nodes.find((n: { id: string }) => n.id === 'organizer');
    organizer.data.prompt = `${organizer.data.prompt} my key is sk-proj-abcdefghijklmnop123456`;
    const refused = await exportDocument(doc, options).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as Error).message).toContain('nodes[');
    expect((refused as Error).message).toContain('data.prompt');
    expect((refused as Error).message).not.toContain('abcdefghijklmnop');

    // A key the backend holds is caught whatever its shape.
    const secret = 'lab-secret-value-0123456789';
    const doc2 = structuredClone(VQA);
    doc2.description = `ask ${secret}`;
    await expect(exportDocument(doc2, { ...options, secrets: [secret] })).rejects.toThrow(
      /description holds what looks like a key/,
    );
  });

  it('refuses a document that is not one', async () => {
    await expect(exportDocument({ nodes: 'no' }, options)).rejects.toBeInstanceOf(ApiError);
  });
});
