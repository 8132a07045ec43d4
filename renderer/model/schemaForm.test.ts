import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { spec as inputSpec } from '../../nodes/input/spec.ts';
import { describeFields, modalityChoices } from './schemaForm.ts';

describe('the inspector form read from a schema', () => {
  const schema = z.strictObject({
    ...baseData,
    prompt: z.string().min(1).meta({ editor: 'code', language: 'liquid', lines: 6 }),
    model: z.string().min(1).optional().meta({ editor: 'model-profile' }),
    notes: z.string().default('').meta({ editor: 'multiline' }),
    title: z.string(),
    rounds: z.number().int().min(1).max(9).default(3),
    history: z.union([z.enum(['none', 'all']), z.number().int()]).default('none'),
  });
  const fields = describeFields(schema);
  const byName = new Map(fields.map((f) => [f.name, f]));

  it('gives each field the editor it declares, wherever the .meta() sits', () => {
    expect(byName.get('prompt')?.meta).toEqual({ editor: 'code', language: 'liquid', lines: 6 });
    expect(byName.get('model')).toMatchObject({
      optional: true,
      meta: { editor: 'model-profile' },
    });
    expect(byName.get('notes')).toMatchObject({ hasDefault: true, meta: { editor: 'multiline' } });
  });

  it('falls back to the type’s own input when a field declares none', () => {
    expect(byName.get('title')).toMatchObject({ field: { kind: 'string' }, meta: {} });
    expect(byName.get('rounds')?.field).toEqual({ kind: 'number', integer: true, min: 1, max: 9 });
    expect(byName.get('history')?.field).toEqual({
      kind: 'choice-or-number',
      options: ['none', 'all'],
    });
  });

  it('leaves out fields declared hidden (editor-only state)', () => {
    expect(byName.has('ui')).toBe(false);
    expect(byName.has('label')).toBe(true);
  });
});

describe('a modality field', () => {
  it('is a choice of the known modalities on the input node, its odd values kept', () => {
    const modality = describeFields(inputSpec.data).find((f) => f.name === 'modality');
    expect(modality?.meta).toEqual({ editor: 'modality' });
    const choices = modalityChoices('text');
    expect(choices).toEqual(expect.arrayContaining(['text', 'image', 'audio', 'list<text>']));
    expect(choices).not.toContain('list<list<text>>');
    expect(modalityChoices('list<list<text>>').at(-1)).toBe('list<list<text>>');
  });
});
