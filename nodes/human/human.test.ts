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

  it("answers with the document's example when nobody can be asked, and says so", async () => {
    const doc = kitchen();
    doc.nodes[1]!.data.examples = ['gently, with butter', 'in the oven'];
    const { outputs, events } = await run(doc, { inputs: { dish: 'soup' } });
    expect(outputs).toEqual({ plan: 'gently, with butter' });
    expect(eventsOf(events, 'human.request')[0]).toMatchObject({ example: 'gently, with butter' });
    expect(eventsOf(events, 'human.response')[0]).toMatchObject({
      answer: 'gently, with butter',
      fromExample: true,
    });
  });

  it('offers the example to a person who can be asked, and keeps their own answer', async () => {
    const doc = kitchen();
    doc.nodes[1]!.data.examples = ['gently'];
    const asked: unknown[] = [];
    const { outputs, events } = await run(doc, {
      inputs: { dish: 'rice' },
      askHuman: async (request) => {
        asked.push(request);
        return 'steamed';
      },
    });
    expect(asked).toEqual([
      { node: 'chef', name: 'choice', prompt: 'How should we cook rice?', example: 'gently' },
    ]);
    expect(outputs).toEqual({ plan: 'steamed' });
    expect(eventsOf(events, 'human.response')[0]).not.toHaveProperty('fromExample');
  });

  it('fails clearly when nobody can answer', async () => {
    const { status, error } = await run(kitchen(), { inputs: { dish: 'rice' } });
    expect(status).toBe('failed');
    expect(error).toBe('node "chef": needs a person\'s answer: pass --input choice=...');
  });

  describe('inside a loop', () => {
    /** A person reports what they see each of 3 rounds; the outer collects every report. */
    const watch = () =>
      graph(
        [
          node('storm', 'mindstorm', { maxRounds: 3 }),
          node(
            'eye',
            'human',
            { name: 'scene', prompt: 'Round {{ loop.round }}: what now?' },
            { parentId: 'storm' },
          ),
          output('seen'),
        ],
        [edge('eye.text', 'seen.value', { collect: 'all' })],
      );

    it('is asked every round under the round, so each answer is kept apart', async () => {
      const asked: string[] = [];
      const { outputs } = await run(watch(), {
        humanAnswers: { 'scene@r2': 'a door' },
        askHuman: async ({ name }) => {
          asked.push(name);
          return `sky at ${name}`;
        },
      });
      expect(asked).toEqual(['scene@r1', 'scene@r3']);
      expect(outputs.seen).toEqual(['sky at scene@r1', 'a door', 'sky at scene@r3']);
    });

    it('takes one answer given under its own name for every round', async () => {
      const { outputs } = await run(watch(), { humanAnswers: { scene: 'a wall' } });
      expect(outputs.seen).toEqual(['a wall', 'a wall', 'a wall']);
    });

    it('takes example N in round N, and the last one after', async () => {
      const doc = watch();
      doc.nodes[1]!.data.examples = ['a hallway', 'a kitchen'];
      const { outputs } = await run(doc, {});
      expect(outputs.seen).toEqual(['a hallway', 'a kitchen', 'a kitchen']);
    });
  });
});
