import { describe, expect, it } from 'vitest';
import { type ChatFields, chatFields, fieldsSchema, type ServedSociety } from './catalog.ts';
import { chatValues } from './chat-map.ts';

describe('a served society`s schemas', () => {
  it('keeps how a file travels beside the document`s own description of the input', () => {
    const schema = fieldsSchema([
      { name: 'photo', modality: 'image', description: 'The photo the question is about.' },
      { name: 'question', modality: 'text', description: 'A question.' },
    ]) as { properties: Record<string, { description?: string; type?: string }> };
    expect(schema.properties.photo).toMatchObject({ type: 'string', contentEncoding: 'base64' });
    expect(schema.properties.photo!.description).toBe(
      'The photo the question is about. — image as a data URL: data:MIME;base64,…',
    );
    expect(schema.properties.question).toEqual({ type: 'string', description: 'A question.' });
  });
});

describe('a served society as a chat model', () => {
  const society = (outputs: Array<{ name: string; modality: string }>) =>
    ({
      name: 'painter',
      inputs: [{ name: 'object', modality: 'text' }],
      outputs,
      compiled: { doc: {} },
    }) as unknown as ServedSociety;

  it('answers with a value, never with a file', () => {
    const fields: ChatFields = chatFields(
      society([
        { name: 'picture', modality: 'image' },
        { name: 'decision', modality: 'any' },
      ]),
    );
    expect(fields).toEqual({ input: 'object', output: 'decision' });
    const pictures = chatFields(society([{ name: 'pictures', modality: 'list<image>' }]));
    expect(pictures.output).toBeUndefined();
    expect(() => chatValues('painter', pictures, [{ role: 'user', content: 'a cat' }])).toThrow(
      'society "painter" has no output to answer a chat with',
    );
  });
});
