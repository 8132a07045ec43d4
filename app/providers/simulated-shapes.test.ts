import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SimulatedProvider, simulateText } from './simulated.ts';
import type { AnswerShape, ChatRequest } from './types.ts';

const ask = (user: string, system = 'You are a careful assistant.'): ChatRequest => ({
  model: 'sim-1',
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ],
});
const body = (text: string) => {
  expect(text.startsWith('[simulated] ')).toBe(true);
  return text.slice('[simulated] '.length);
};

describe('simulated answers in the shape asked for', () => {
  it('answers JSON valid against the schema, with the label in its free strings', () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string', maxLength: 200 },
        mood: { enum: ['calm', 'stormy'] },
        score: { type: 'integer', minimum: 1, maximum: 10 },
        ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 4 },
        when: { type: 'string', format: 'date' },
        author: { $ref: '#/$defs/person' },
        note: { anyOf: [{ type: 'null' }, { type: 'string' }] },
        done: { type: 'boolean' },
      },
      required: ['title', 'mood', 'score', 'tags', 'author'],
      additionalProperties: false,
      $defs: {
        person: {
          type: 'object',
          properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
          required: ['name', 'age'],
        },
      },
    };
    const validate = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    for (const topic of ['a lighthouse', 'a harbour', 'a storm']) {
      const value = JSON.parse(
        body(simulateText(ask(`Describe ${topic}.`), { kind: 'json', schema })),
      );
      expect(validate.safeParse(value).success).toBe(true);
      expect(value.title).toMatch(/^\[simulated\] /);
      expect(value.tags.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('without a schema, answers JSON shaped like the example in the prompt', () => {
    const prompt =
      'Rate the plan. Reply in JSON like {"verdict": "short text", "score": 3, "risks": ["..."]}.';
    const value = JSON.parse(body(simulateText(ask(prompt), { kind: 'json' })));
    expect(Object.keys(value)).toEqual(['verdict', 'score', 'risks']);
    expect(value.verdict).toMatch(/^\[simulated\] /);
    expect(value.score).toBe(3);
    expect(Array.isArray(value.risks)).toBe(true);
    const plain = JSON.parse(body(simulateText(ask('Answer in JSON.'), { kind: 'json' })));
    expect(plain).toEqual({ answer: expect.stringMatching(/^\[simulated\] /) });
  });

  it('picks the option the context talks about most', () => {
    const notes = [
      'Observer 1: the shape is mostly red and round.',
      'Observer 2: a red disc on white.',
      'Observer 3: I see a red circle.',
    ].join('\n');
    const prompt = `What is shown? (a) a green triangle (b) a red circle (c) a blue square\nNotes: ${notes}\nAnswer with its letter only, for example (a).`;
    expect(simulateText(ask(prompt), { kind: 'choice' })).toBe('[simulated] (b)');
    // The same without a shape: options are read from the prompt all the same.
    expect(simulateText(ask(prompt))).toBe('[simulated] (b)');
    // Options handed over by the node, answered by letter.
    expect(
      simulateText(ask(`Which is ripe? ${notes}`), { kind: 'choice', options: ['blue', 'red'] }),
    ).toBe('[simulated] (b)');
  });

  it('breaks ties between options by the seed, so different prompts spread their answers', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      seen.add(simulateText(ask(`Poll ${i}: (a) bridge (b) ferry (c) tunnel`), { kind: 'choice' }));
    }
    expect([...seen].every((t) => /^\[simulated\] \([abc]\)$/.test(t))).toBe(true);
    expect(seen.size).toBeGreaterThan(1);
  });

  it('casts ballots naming candidates: one, a full ranking, or a few approved', () => {
    const candidates = ['Claude Monet', 'Frida Kahlo', 'Hokusai'];
    const prompt =
      'Proposals: Claude Monet: water lilies. Frida Kahlo: a self-portrait with monkeys and Kahlo colours. Hokusai: a wave. Name the best artist.';
    const one = body(simulateText(ask(prompt), { kind: 'ballot', candidates, form: 'single' }));
    expect(one).toBe('Frida Kahlo');
    const ranking = body(
      simulateText(ask(prompt), { kind: 'ballot', candidates, form: 'ranking' }),
    );
    expect(ranking.split(' > ').sort()).toEqual([...candidates].sort());
    expect(ranking.startsWith('Frida Kahlo > ')).toBe(true);
    const approval = body(
      simulateText(ask(prompt), { kind: 'ballot', candidates, form: 'approval' }),
    );
    expect(approval.split(', ')[0]).toBe('Frida Kahlo');
    // One-letter candidates are written as options, so a vote reads them as letters.
    expect(
      body(
        simulateText(ask('adopt, amend or reject?'), {
          kind: 'ballot',
          candidates: ['a', 'b', 'c'],
          form: 'single',
        }),
      ),
    ).toMatch(/^\([abc]\)$/);
  });

  it('lets the node compose its answer from the request, still labelled', async () => {
    const shape: AnswerShape = {
      kind: 'custom',
      answer: (request, draw) => `echo ${request.messages.length} ${draw(1)}`,
    };
    const result = await new SimulatedProvider().chat(ask('go'), {
      signal: AbortSignal.timeout(5000),
      answerShape: shape,
    });
    expect(result).toMatchObject({ text: '[simulated] echo 2 0', simulated: true });
  });

  it('gives byte-identical answers for the same request, in every shape', () => {
    const shapes: AnswerShape[] = [
      {
        kind: 'json',
        schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } } },
      },
      { kind: 'json' },
      { kind: 'choice' },
      { kind: 'ballot', candidates: ['x ray', 'y axis', 'z index'], form: 'ranking' },
    ];
    const request = ask('Pick one: (a) x ray (b) y axis (c) z index. Answer as {"pick": "..."}');
    for (const shape of shapes) {
      expect(simulateText(structuredClone(request), shape)).toBe(simulateText(request, shape));
    }
  });
});
