import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { spec as dispatcherSpec } from '../../nodes/dispatcher/spec.ts';
import { spec as inputSpec } from '../../nodes/input/spec.ts';
import { spec as plannerSpec } from '../../nodes/planner/spec.ts';
import { spec as routerSpec } from '../../nodes/router/spec.ts';
import { describeFields, modalityChoices, shownFields } from './schemaForm.ts';

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

describe('the fields a form shows for the data it has', () => {
  const names = (fields: { name: string }[]) => fields.map((f) => f.name);

  it('shows a router’s rules in rules mode and its model’s fields in model mode', () => {
    const fields = describeFields(routerSpec.data);
    const rules = names(shownFields(fields, routerSpec.data.parse({})));
    expect(rules).toContain('rules');
    expect(rules).not.toContain('prompt');
    expect(rules).not.toContain('model');
    const model = names(shownFields(fields, routerSpec.data.parse({ mode: 'model' })));
    expect(model).toEqual(expect.arrayContaining(['model', 'prompt', 'unclear']));
    expect(model).not.toContain('rules');
    // What every mode uses stays.
    for (const shown of [rules, model]) expect(shown).toContain('outputs');
  });

  it('shows a planner and a dispatcher only their own fields, and retries only when it retries', () => {
    const plan = names(shownFields(describeFields(plannerSpec.data), plannerSpec.data.parse({})));
    expect(plan).toEqual(expect.arrayContaining(['experts', 'maxAttempts', 'model']));
    expect(plan).not.toContain('seats');
    expect(plan).not.toContain('retries');
    const fields = describeFields(dispatcherSpec.data);
    const dispatch = dispatcherSpec.data.parse({});
    expect(names(shownFields(fields, dispatch))).toEqual(
      expect.arrayContaining(['seats', 'feedback', 'model']),
    );
    expect(names(shownFields(fields, dispatch))).not.toContain('experts');
    expect(names(shownFields(fields, dispatch))).not.toContain('retries');
    expect(names(shownFields(fields, { ...dispatch, behaviour: 'retry' }))).toContain('retries');
  });

  it('shows the fields of a mode bound to a parameter, which a run may set either way', () => {
    const fields = describeFields(routerSpec.data);
    const shown = names(shownFields(fields, { mode: { $param: 'how' } }));
    expect(shown).toEqual(expect.arrayContaining(['rules', 'model', 'prompt']));
  });
});
