import { describe, expect, it } from 'vitest';
import type { FlowNode } from './document.ts';
import { specHook } from './ports.ts';
import { fieldValue, runInputFields } from './run-inputs.ts';

const node = (id: string, type: string, data: Record<string, unknown>): FlowNode => ({
  id,
  type,
  position: { x: 0, y: 0 },
  data,
});

describe('what the editor reads from node specs', () => {
  it('asks for each run input and each answer a person can give ahead, in node order', () => {
    const fields = runInputFields([
      node('q', 'input', { name: 'question', description: 'What to ask', default: 'why?' }),
      node('agent1', 'agent', { prompt: '{{ question }}', model: 'default' }),
      node('judge', 'human', { name: 'verdict', prompt: 'Is it right?' }),
      // A seat is answered per step while the episode plays, not in the form.
      node('cook', 'dispatcher', { controller: 'greedy', seats: ['agent1'] }),
      node('photo', 'input', { name: 'photo', modality: 'image' }),
    ]);
    expect(fields).toEqual([
      {
        id: 'q',
        name: 'question',
        modality: 'text',
        description: 'What to ask',
        hasDefault: true,
        human: false,
      },
      {
        id: 'judge',
        name: 'verdict',
        modality: 'text',
        description: 'Is it right?',
        hasDefault: false,
        human: true,
      },
      {
        id: 'photo',
        name: 'photo',
        modality: 'image',
        description: '',
        hasDefault: false,
        human: false,
      },
    ]);
  });

  it('keeps listing an input whose name is half typed', () => {
    const [field] = runInputFields([node('q', 'input', { name: 'my q' })]);
    expect(field).toMatchObject({ name: 'my q', modality: 'text' });
  });

  it("shows a mindstorm's rounds and structure in its header, and nothing for a group", () => {
    expect(
      specHook(node('storm', 'mindstorm', { maxRounds: 5, structure: 'democracy' }), 'badges'),
    ).toEqual([{ label: 'rounds ×5', testId: 'rounds' }, { label: 'democracy' }]);
    expect(specHook(node('g', 'group', {}), 'badges')).toBeUndefined();
  });
});

describe('the Inputs form and a document’s examples', () => {
  const PNG = 'data:image/png;base64,iVBORw0KGgo=';
  const fields = runInputFields([
    node('q', 'input', { name: 'question', example: 'Which shape?' }),
    node('photo', 'input', { name: 'photo', modality: 'image', example: PNG }),
    node('n', 'input', { name: 'count', modality: 'number', example: 3 }),
    node('plain', 'input', { name: 'plain' }),
  ]);

  it('starts each field with its example: text as it reads, a file as "example"', () => {
    expect(fields.map((f) => f.example)).toEqual(['Which shape?', PNG, '3', undefined]);
    expect(fields.map((f) => fieldValue(f, {}))).toEqual(['Which shape?', 'example', '3', '']);
  });

  it('keeps what the person typed, picked or emptied', () => {
    const values = { question: 'Mine?', photo: '', count: '' };
    expect(fields.map((f) => fieldValue(f, values))).toEqual(['Mine?', '', '', '']);
  });
});
