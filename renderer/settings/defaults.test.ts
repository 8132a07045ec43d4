import { describe, expect, it } from 'vitest';
import { ModelDefaultsSchema } from '../../app/api/contract.ts';
import { DocumentSchema } from '../../app/schema/document.ts';
import { fromDocument, initialData, newDocument } from '../model/document.ts';
import { documentModels, profileForNewNode } from './defaults.ts';

const defaults = ModelDefaultsSchema.parse({
  text: { provider: 'ollama', model: 'llama3.1' },
  vision: { provider: 'ollama', model: 'llava' },
});

describe('default models from settings', () => {
  it('give a new document a text and a vision profile', () => {
    const doc = newDocument(documentModels(defaults));
    expect(doc.models).toEqual({
      default: { provider: 'ollama', model: 'llama3.1' },
      vision: { provider: 'ollama', model: 'llava', vision: true },
    });
    expect(DocumentSchema.safeParse(doc).success).toBe(true);
  });

  it("make a new agent use the document's profile for the text default", () => {
    const models = {
      organizer: { provider: 'openai', model: 'gpt-4o' },
      seer: { provider: 'ollama', model: 'llama3.1', vision: true },
      writer: { provider: 'ollama', model: 'llama3.1' },
    };
    expect(profileForNewNode(models, defaults)).toBe('writer');
    const meta = fromDocument({ ...newDocument(models) }).meta;
    expect(initialData('agent', 'agent1', meta, profileForNewNode(models, defaults))).toMatchObject(
      { model: 'writer' },
    );
    // No profile matches: the node takes the document's first, as before.
    const other = { organizer: models.organizer };
    expect(profileForNewNode(other, defaults)).toBeUndefined();
    expect(
      initialData('summarize', 's1', fromDocument(newDocument(other)).meta, undefined),
    ).toMatchObject({ model: 'organizer' });
  });
});
