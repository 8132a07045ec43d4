import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphScorer } from './graph-scorer.ts';

/** A scorer document whose `score` is the JSON its transform writes (a metric's report). */
function scorerDocument(json: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'society-graph-scorer-')), 'scorer.society.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      name: 'metric-like',
      nodes: [
        { id: 'p', type: 'input', position: { x: 0, y: 0 }, data: { name: 'prediction' } },
        { id: 'r', type: 'input', position: { x: 0, y: 100 }, data: { name: 'reference' } },
        {
          id: 't',
          type: 'transform',
          position: { x: 200, y: 0 },
          data: { template: `{% assign a = p %}{% assign b = r %}${json}`, output: 'json' },
        },
        { id: 's', type: 'output', position: { x: 400, y: 0 }, data: { name: 'score' } },
      ],
      edges: [
        { id: 'a', source: 'p', sourceHandle: 'value', target: 't', targetHandle: 'p' },
        { id: 'b', source: 'r', sourceHandle: 'value', target: 't', targetHandle: 'r' },
        { id: 'c', source: 't', sourceHandle: 'value', target: 's', targetHandle: 'value' },
      ],
    }),
  );
  return file;
}

describe('a scorer document', () => {
  it('gives its score, and no score (never 0) when its metric was skipped', async () => {
    const scored = await graphScorer(
      { name: 'graph', graph: scorerDocument('{"score": 0.75}') },
      { simulate: true },
    );
    expect(await scored.score('a', 'b', { row: {} })).toBe(0.75);
    // A metric skipped for want of a token reports `score: null`: the item fails, it is not a 0.
    const skipped = await graphScorer(
      { name: 'graph', graph: scorerDocument('{"score": null, "skipped": "HF_TOKEN is not set"}') },
      { simulate: true },
    );
    await expect(skipped.score('a', 'b', { row: {} })).rejects.toThrow(/gave no score/);
    const none = await graphScorer(
      { name: 'graph', graph: scorerDocument('null') },
      { simulate: true },
    );
    await expect(none.score('a', 'b', { row: {} })).rejects.toThrow(/gave no score/);
  });
});
