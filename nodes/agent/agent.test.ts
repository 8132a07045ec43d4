import { describe, expect, it } from 'vitest';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import {
  agent,
  edge,
  eventsOf,
  graph,
  input,
  node,
  output,
  problems,
  run,
} from '../../tests/support/graphs.ts';
import { parseAnswer } from './parse.ts';

/** q → a (with `data`) → o */
const one = (prompt: string, data: Record<string, unknown> = {}) =>
  graph(
    [input('q'), agent('a', prompt, data), output('o')],
    [edge('q.value', 'a.q'), edge('a.text', 'o.value')],
  );

describe('agent node', () => {
  it('sends its role as the system message and its rendered prompt as the user message', async () => {
    const fake = new FakeProvider(() => 'ok');
    await run(one('Q: {{ q }}', { role: 'You are {{ "terse" | upcase }}.' }), {
      providerFor: fake.providerFor,
      inputs: { q: 'why?' },
    });
    expect(fake.calls[0]?.request.messages).toEqual([
      { role: 'system', content: 'You are TERSE.' },
      { role: 'user', content: 'Q: why?' },
    ]);
  });

  it('uses the model, temperature and token limit of its profile, overridden by its own', async () => {
    const fake = new FakeProvider(() => 'ok');
    const doc = one('{{ q }}', { maxTokens: 12 });
    doc.models = { m: { provider: 'x', model: 'big-model', temperature: 0.3, maxTokens: 99 } };
    await run(doc, { providerFor: fake.providerFor, inputs: { q: '?' } });
    expect(fake.calls[0]?.request).toMatchObject({
      model: 'big-model',
      temperature: 0.3,
      maxTokens: 12,
    });
  });

  it('picks its model profile per replica from a template', async () => {
    const fake = new FakeProvider(() => 'ok');
    const doc = one('{{ q }}', { model: '{{ item }}', replicate: { items: ['small', 'large'] } });
    doc.models = {
      small: { provider: 'x', model: 'small-1' },
      large: { provider: 'x', model: 'large-1' },
    };
    const { outputs } = await run(doc, { providerFor: fake.providerFor, inputs: { q: '?' } });
    expect(fake.calls.map((c) => c.request.model).sort()).toEqual(['large-1', 'small-1']);
    expect(outputs.o).toEqual(['ok', 'ok']);
  });

  it('sends an image input with the prompt when it has vision', async () => {
    const fake = new FakeProvider(() => 'a cat');
    const blobs = new BlobStore();
    const photo = blobs.putImage(new Uint8Array([1, 2, 3]), 'image/png');
    const doc = graph(
      [
        input('photo', { modality: 'image' }),
        agent('a', 'What is this?', { vision: true }),
        output('o'),
      ],
      [edge('photo.value', 'a.image'), edge('a.text', 'o.value')],
    );
    const { outputs, events } = await run(doc, {
      providerFor: fake.providerFor,
      blobs,
      inputs: { photo },
    });
    expect(outputs.o).toBe('a cat');
    expect(fake.calls[0]?.request.messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', url: 'data:image/png;base64,AQID', mime: 'image/png', sha256: photo.$image },
    ]);
    // Events carry a reference to the image, never its bytes.
    expect(JSON.stringify(events)).not.toContain('AQID');
  });

  it('needs an image input when it has vision', async () => {
    expect(await problems(graph([agent('a', 'Look.', { vision: true })]))).toEqual([
      { path: 'nodes[0]', node: 'a', message: 'required input "image" (image) is not connected' },
    ]);
  });

  it.each([
    ['json', '```json\n{"a": [1, 2]}\n```', { a: [1, 2] }],
    ['lines', '- red\n- green\n\n2. blue', ['red', 'green', 'blue']],
    ['question', 'Is it red? I wonder.', 'Is it red?'],
    ['choice', 'I would go with (B) here', '(b)'],
    ['text', '  plain  ', 'plain'],
  ])('reads its answer as %s', async (parse, answer, expected) => {
    const fake = new FakeProvider(() => answer);
    const { outputs } = await run(one('{{ q }}', { parse }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(outputs.o).toEqual(expected);
  });

  it('fails the run, naming the node, when a JSON answer is not JSON', async () => {
    const fake = new FakeProvider(() => 'sorry, no');
    const { error } = await run(one('{{ q }}', { parse: 'json' }), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(error).toBe('node "a": the model did not answer with JSON: sorry, no');
  });

  it('answers JSON under --simulate, shaped like the example in the prompt and labelled', async () => {
    const doc = one('Judge {{ q }}. Reply with JSON like {"verdict": "...", "score": 5}.', {
      parse: 'json',
    });
    const { outputs, status, events } = await run(doc, { simulate: true, inputs: { q: 'it' } });
    expect(status).toBe('succeeded');
    expect(outputs.o).toEqual({ verdict: expect.stringMatching(/^\[simulated\] /), score: 5 });
    const [message] = eventsOf(events, 'message');
    expect(message).toMatchObject({
      simulated: true,
      text: expect.stringMatching(/^\[simulated\] \{/),
    });
  });

  it('answers a multiple-choice prompt under --simulate with the option its context names', async () => {
    const doc = one(
      'Notes: {{ q }}\nWhich is it? (a) a green triangle (b) a red circle. Letter only.',
      {
        parse: 'choice',
      },
    );
    const { outputs } = await run(doc, {
      simulate: true,
      inputs: { q: 'everyone saw something red and round: a circle' },
    });
    expect(outputs.o).toBe('[simulated] (b)');
  });

  it('keeps the simulated label when reading a choice', () => {
    expect(parseAnswer('[simulated] (c)', 'choice')).toBe('[simulated] (c)');
  });

  describe('history inside a mindstorm', () => {
    const talk = (history: unknown) =>
      graph([
        node('storm', 'mindstorm', { maxRounds: 3 }),
        agent('a', 'Round {{ loop.round }}', { history }, { parentId: 'storm' }),
      ]);
    const sent = async (history: unknown) => {
      const fake = new FakeProvider((call) => `answer to ${call.user}`);
      await run(talk(history), { providerFor: fake.providerFor });
      return fake.calls.map((c) => c.request.messages.map((m) => m.content));
    };

    it('"none" sends only this round', async () => {
      expect((await sent('none'))[2]).toEqual(['Round 3']);
    });

    it('"all" replays every earlier exchange', async () => {
      expect((await sent('all'))[2]).toEqual([
        'Round 1',
        'answer to Round 1',
        'Round 2',
        'answer to Round 2',
        'Round 3',
      ]);
    });

    it('a number keeps the last N exchanges', async () => {
      expect((await sent(1))[2]).toEqual(['Round 2', 'answer to Round 2', 'Round 3']);
    });
  });

  it('says the word that ends its loop in a simulated run, a third of the way through', async () => {
    const doc = graph([
      node('talk', 'mindstorm', {
        maxRounds: 9,
        until: [{ kind: 'keyword', node: 'user', keyword: '<DONE>' }],
      }),
      agent('user', 'Next step, round {{ loop.round }}', {}, { parentId: 'talk' }),
      output('rounds'),
    ]);
    doc.edges.push(edge('talk.rounds', 'rounds.value'));
    const { outputs, events } = await run(doc, { simulate: true });
    expect(outputs.rounds).toBe(3);
    const said = eventsOf(events, 'message').map((m) => m.text);
    expect(said[2]).toBe('[simulated] <DONE>');
    expect(said.slice(0, 2).some((t) => t.includes('<DONE>'))).toBe(false);
  });
});
