/**
 * `showWhen`: a field applies only when other fields of its object hold some values. The
 * conditions are evaluated here for the inspector and `society nodes`, and checked here for the
 * registry, which refuses a node type whose hints name no field or a value it cannot hold.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadNodeRegistry } from './registry.ts';
import {
  conditionHolds,
  describeShowWhen,
  hiddenFields,
  type ShowWhen,
  showWhenHints,
  showWhenProblems,
} from './show-when.ts';

describe('a showWhen condition', () => {
  it('holds when the field is the value, or one of the values', () => {
    expect(conditionHolds({ field: 'mode', is: 'model' }, { mode: 'model' })).toBe(true);
    expect(conditionHolds({ field: 'mode', is: 'model' }, { mode: 'rules' })).toBe(false);
    expect(conditionHolds({ field: 'kind', in: ['a', 'b'] }, { kind: 'b' })).toBe(true);
    expect(conditionHolds({ field: 'kind', in: ['a', 'b'] }, { kind: 'c' })).toBe(false);
    expect(conditionHolds({ field: 'on', is: false }, { on: false })).toBe(true);
    expect(conditionHolds({ field: 'mode', is: 'model' }, {})).toBe(false);
  });

  it('holds only when every condition of a list does', () => {
    const both: ShowWhen = [
      { field: 'mode', is: 'dispatch' },
      { field: 'behaviour', is: 'retry' },
    ];
    expect(conditionHolds(both, { mode: 'dispatch', behaviour: 'retry' })).toBe(true);
    expect(conditionHolds(both, { mode: 'dispatch', behaviour: 'feedback' })).toBe(false);
    expect(conditionHolds(both, { mode: 'plan', behaviour: 'retry' })).toBe(false);
  });

  it('cannot be decided by a value bound to a template parameter, so the field shows', () => {
    expect(conditionHolds({ field: 'mode', is: 'model' }, { mode: { $param: 'how' } })).toBe(true);
  });

  it('is said in words beside the field', () => {
    expect(describeShowWhen({ field: 'mode', is: 'rules' })).toBe('when mode is rules');
    expect(describeShowWhen({ field: 'kind', in: ['a', 'b', 'c'] })).toBe('when kind is a, b or c');
    expect(
      describeShowWhen([
        { field: 'mode', is: 'dispatch' },
        { field: 'retry', is: true },
      ]),
    ).toBe('when mode is dispatch and retry is true');
  });
});

describe('the fields hidden for some values', () => {
  const hints = new Map<string, ShowWhen>([
    ['behaviour', { field: 'mode', is: 'dispatch' }],
    ['retries', { field: 'behaviour', is: 'retry' }],
    ['task', { field: 'mode', is: 'plan' }],
  ]);

  it('are those whose condition fails, and those reading a hidden field', () => {
    expect(hiddenFields(hints, { mode: 'dispatch', behaviour: 'retry' })).toEqual(
      new Set(['task']),
    );
    expect(hiddenFields(hints, { mode: 'dispatch', behaviour: 'feedback' })).toEqual(
      new Set(['task', 'retries']),
    );
    // `behaviour` is kept as `retry` while the planner plans, but it is hidden, so is `retries`.
    expect(hiddenFields(hints, { mode: 'plan', behaviour: 'retry' })).toEqual(
      new Set(['behaviour', 'retries']),
    );
  });
});

describe('the hints of a data schema', () => {
  it('are read wherever the .meta() sits among the wrappers', () => {
    const schema = z.strictObject({
      mode: z.enum(['a', 'b']).default('a'),
      x: z
        .string()
        .meta({ showWhen: { field: 'mode', is: 'b' } })
        .optional(),
      y: z
        .number()
        .optional()
        .meta({ showWhen: { field: 'mode', in: ['a'] } }),
      z: z.string(),
    });
    expect(Object.fromEntries(showWhenHints(schema))).toEqual({
      x: { field: 'mode', is: 'b' },
      y: { field: 'mode', in: ['a'] },
    });
    expect(showWhenProblems(schema)).toEqual([]);
  });

  it('are refused, one line each, when they name no field, a value it cannot hold, or a circle', () => {
    const schema = z.strictObject({
      mode: z.enum(['rules', 'model']).default('rules'),
      a: z.string().meta({ showWhen: { field: 'moed', is: 'rules' } }),
      b: z.string().meta({ showWhen: { field: 'mode', in: ['rules', 'modle'] } }),
      c: z.string().meta({ showWhen: { field: 'c', is: 'x' } }),
      d: z.string().meta({ showWhen: { field: 'mode' } as never }),
      e: z.boolean().meta({ showWhen: { field: 'f', is: true } }),
      f: z.boolean().meta({ showWhen: { field: 'e', is: 'yes' } }),
      nested: z.strictObject({ g: z.string().meta({ showWhen: { field: 'mode', is: 'rules' } }) }),
    });
    expect(showWhenProblems(schema)).toEqual([
      'field "a": showWhen names no field of its object ("moed")',
      'field "b": showWhen compares "mode" with "modle", which it cannot hold ("rules", "model")',
      'field "c": showWhen names the field itself',
      'field "d": showWhen must be { field, is } or { field, in: [...] }, or a list of them',
      'field "f": showWhen compares "e" with "yes", which it cannot hold (true, false)',
      'field "nested.g": showWhen names no field of its object ("mode")',
      'field "e": showWhen conditions read each other in a circle (e → f → e)',
      'field "f": showWhen conditions read each other in a circle (f → e → f)',
    ]);
  });

  it('of every built-in node type hold, and the moded types declare theirs', async () => {
    const registry = await loadNodeRegistry();
    for (const spec of registry.specs.values()) expect(showWhenProblems(spec.data)).toEqual([]);
    const router = showWhenHints(registry.get('router')!.data);
    expect(router.get('rules')).toEqual({ field: 'mode', is: 'rules' });
    expect(router.get('prompt')).toEqual({ field: 'mode', is: 'model' });
    const dispatcher = showWhenHints(registry.get('dispatcher')!.data);
    expect(dispatcher.get('retries')).toEqual({ field: 'behaviour', is: 'retry' });
  });
});

describe('the registry', () => {
  it('refuses a node type whose showWhen names no field, saying which', async () => {
    // Inside the checkout, so the spec finds zod as a node type's folder does.
    const parent = fileURLToPath(new URL('../../test-results/', import.meta.url));
    mkdirSync(parent, { recursive: true });
    const dir = mkdtempSync(join(parent, 'show-when-'));
    try {
      mkdirSync(join(dir, 'moody'));
      writeFileSync(
        join(dir, 'moody', 'spec.ts'),
        `import { z } from 'zod';
export const spec = {
  type: 'moody',
  data: z.strictObject({
    mode: z.enum(['a', 'b']).default('a'),
    x: z.string().optional().meta({ showWhen: { field: 'mood', is: 'a' } }),
  }),
  ports: () => ({ inputs: [], outputs: [] }),
};
`,
      );
      await expect(loadNodeRegistry(dir)).rejects.toThrow(
        'nodes/moody/spec.ts: field "x": showWhen names no field of its object ("mood")',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
