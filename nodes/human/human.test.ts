import { describe, expect, it } from 'vitest';
import { edge, eventsOf, graph, input, node, output, run } from '../../tests/support/graphs.ts';

/** A person is asked which dish to cook for the dish the input names. */
const kitchen = () =>
  graph(
    [
      input('dish'),
      node('chef', 'human', { name: 'choice', prompt: 'How should we cook {{ dish }}?' }),
      output('plan'),
    ],
    [edge('dish.value', 'chef.dish'), edge('chef.text', 'plan.value')],
  );

describe('human node', () => {
  it('takes the answer from humanAnswers', async () => {
    const { outputs, events } = await run(kitchen(), {
      inputs: { dish: 'soup' },
      humanAnswers: { choice: 'slowly' },
    });
    expect(outputs).toEqual({ plan: 'slowly' });
    expect(eventsOf(events, 'human.request')[0]).toMatchObject({
      node: 'chef',
      name: 'choice',
      prompt: 'How should we cook soup?',
    });
    expect(eventsOf(events, 'human.response')[0]).toMatchObject({ answer: 'slowly' });
    expect(eventsOf(events, 'message')[0]).toMatchObject({ from: 'chef', text: 'slowly' });
  });

  it('asks through askHuman with the rendered prompt', async () => {
    const asked: unknown[] = [];
    const { outputs } = await run(kitchen(), {
      inputs: { dish: 'rice' },
      askHuman: async (request) => {
        asked.push(request);
        return 'steamed';
      },
    });
    expect(asked).toEqual([{ node: 'chef', name: 'choice', prompt: 'How should we cook rice?' }]);
    expect(outputs).toEqual({ plan: 'steamed' });
  });

  it('prefers a given answer over asking', async () => {
    let asked = false;
    const { outputs } = await run(kitchen(), {
      inputs: { dish: 'rice' },
      humanAnswers: { choice: 'fried' },
      askHuman: async () => {
        asked = true;
        return 'steamed';
      },
    });
    expect(outputs).toEqual({ plan: 'fried' });
    expect(asked).toBe(false);
  });

  it('fails clearly when nobody can answer', async () => {
    const { status, error } = await run(kitchen(), { inputs: { dish: 'rice' } });
    expect(status).toBe('failed');
    expect(error).toBe('node "chef": needs a person\'s answer: pass --input choice=...');
  });
});
