import { describe, expect, it } from 'vitest';
import { evalIdentity, evalIdOf } from './identity.ts';
import type { EvalConfig } from './types.ts';

const config: EvalConfig = {
  name: 'qa',
  document: 'qa.society.json',
  documentHash: 'd1',
  data: 'qa.jsonl',
  dataHash: 'h1',
  map: ['question=q'],
  expect: 'answer',
  scorer: { name: 'exact' },
  variants: [{ name: 'base', model: [], set: [], provider: [] }],
  mode: 'simulated',
};
const documents = [{ documentHash: 'd1' }];

describe("an eval's identity", () => {
  it('is the same for the same command, whatever order its options were gathered in', () => {
    const reordered = Object.fromEntries(Object.entries(config).reverse()) as EvalConfig;
    expect(evalIdOf(reordered, documents)).toBe(evalIdOf(config, documents));
    // An option left unset and one set to nothing name the same eval.
    expect(evalIdentity({ mode: 'live', limit: undefined })).toBe(evalIdentity({ mode: 'live' }));
    expect(evalIdOf(config, documents)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with the documents, the data, the mode or the limit, not with the name or a rubric', () => {
    const id = evalIdOf(config, documents);
    expect(evalIdOf(config, [{ documentHash: 'd2' }])).not.toBe(id);
    expect(evalIdOf({ ...config, dataHash: 'h2' }, documents)).not.toBe(id);
    expect(evalIdOf({ ...config, mode: 'live' }, documents)).not.toBe(id);
    expect(evalIdOf({ ...config, limit: 3 }, documents)).not.toBe(id);
    expect(evalIdOf({ ...config, name: 'renamed', budgetUsd: 1 }, documents)).toBe(id);
    const rubric = { name: 'r', scales: [] } as unknown as NonNullable<EvalConfig['rubric']>;
    expect(evalIdOf({ ...config, rubric }, documents)).toBe(id);
  });
});
