/**
 * Every node type's editor hooks hold their promises: a node just dropped is valid, its card
 * can summarize it, and its data migrations reach the current version step by step.
 */
import { describe, expect, it } from 'vitest';
import { loadNodeRegistry } from './registry.ts';

const registry = await loadNodeRegistry();
const context = {
  id: 'new1',
  profile: 'fast',
  profiles: ['fast', 'careful'],
  ids: new Set(['agent1']),
};

describe.each([...registry.specs.values()])('the $type node type', (spec) => {
  it('starts valid: its initial data passes the schema and its checks', () => {
    const parsed = spec.data.safeParse(spec.initialData?.(context) ?? {});
    if (!parsed.success) expect.fail(parsed.error.issues.map((i) => i.message).join('; '));
    expect(spec.check?.(parsed.data) ?? []).toEqual([]);
    const summary = spec.summary?.(parsed.data);
    expect(summary === undefined || typeof summary === 'string').toBe(true);
  });

  it('has a migration for every data version before the current one', () => {
    const version = spec.version ?? 1;
    expect(Number.isInteger(version) && version >= 1).toBe(true);
    for (let v = 1; v < version; v++) expect(typeof spec.migrations?.[v]).toBe('function');
  });
});

describe('starting data', () => {
  it('uses the model profile and the id it is given', () => {
    expect(registry.get('agent')?.initialData?.(context)).toMatchObject({ model: 'fast' });
    expect(registry.get('input')?.initialData?.(context)).toMatchObject({ name: 'new1' });
  });
});
