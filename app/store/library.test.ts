import { describe, expect, it } from 'vitest';
import type { GraphDocument } from '../schema/document.ts';
import { doc, store, withTempStores } from './store.test-helper.ts';

withTempStores();

describe('graph library', () => {
  it('adds a version only when the content changes', () => {
    const s = store();
    const first = s.saveGraph(doc, JSON.stringify(doc));
    expect(first).toMatchObject({ name: 'debate', version: 1, changed: true });
    // Same content, other formatting and key order: no new version.
    const reordered = { edges: [], nodes: doc.nodes, name: 'debate', version: 1 } as GraphDocument;
    expect(s.saveGraph(reordered, JSON.stringify(reordered, null, 4))).toMatchObject({
      version: 1,
      changed: false,
    });
    const changed = { ...doc, description: 'now with a description' };
    expect(s.saveGraph(changed, JSON.stringify(changed))).toMatchObject({
      version: 2,
      changed: true,
    });
    expect(s.saveGraph(doc, JSON.stringify(doc))).toMatchObject({ version: 3, changed: true });
    s.saveGraph({ ...doc, name: 'another' }, '{}');

    expect(s.listGraphs().map((g) => [g.name, g.version])).toEqual([
      ['another', 1],
      ['debate', 3],
    ]);
    expect(s.getGraph('debate')?.version).toBe(3);
    expect(s.getGraph('debate', 2)?.documentText).toBe(JSON.stringify(changed));
    expect(s.getGraph(first.id, 1)?.documentText).toBe(JSON.stringify(doc));
    expect(s.getGraph('debate', 9)).toBeUndefined();
    expect(s.getGraph('missing')).toBeUndefined();
    expect(s.graphVersions('debate').map((v) => v.version)).toEqual([1, 2, 3]);
    expect(s.deleteGraph('debate')).toBe(true);
    expect(s.getGraph(first.id)).toBeUndefined();
  });
});

describe('blobs and prices', () => {
  it('stores bytes once by hash', () => {
    const s = store();
    const bytes = new Uint8Array([137, 80, 78, 71, 0, 255]);
    const sha = s.putBlob(bytes, 'image/png');
    expect(s.putBlob(bytes, 'image/png')).toBe(sha);
    expect(s.getBlob(sha)).toEqual({ bytes, mime: 'image/png' });
    expect(s.getBlob('0'.repeat(64))).toBeUndefined();
  });

  it('keeps one price per model', () => {
    const s = store();
    s.setPrice('gpt-x', { inputPerMillion: 1, outputPerMillion: 2 });
    s.setPrice('gpt-x', { inputPerMillion: 1.5, outputPerMillion: 6 });
    expect(s.getPrice('gpt-x')).toMatchObject({ inputPerMillion: 1.5, outputPerMillion: 6 });
    s.setPrice('gpt-y', { inputPerMillion: 0.1, outputPerMillion: 0.4 });
    expect(s.priceTable()).toEqual({
      'gpt-x': { inputPerMillion: 1.5, outputPerMillion: 6 },
      'gpt-y': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
    });
    expect(() => s.setPrice('bad', { inputPerMillion: -1, outputPerMillion: 0 })).toThrow();
    expect(s.deletePrice('gpt-x')).toBe(true);
    expect(s.getPrice('gpt-x')).toBeUndefined();
  });
});
