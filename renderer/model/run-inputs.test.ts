import { describe, expect, it } from 'vitest';
import type { FlowNode } from './document.ts';
import { specHook } from './ports.ts';
import { runInputFields } from './run-inputs.ts';

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
      node('cook', 'planner', { mode: 'dispatch', controller: 'greedy', seats: ['agent1'] }),
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
