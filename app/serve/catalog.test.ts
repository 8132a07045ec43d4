import { describe, expect, it } from 'vitest';
import { fieldsSchema } from './catalog.ts';

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
