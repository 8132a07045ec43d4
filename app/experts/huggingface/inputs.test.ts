import { beforeEach, describe, expect, it } from 'vitest';
import {
  failure,
  image,
  last,
  png,
  type Responder,
  run,
  stub,
  withStubHuggingFace,
} from '../../../tests/support/hf-fixture.ts';

let responder: Responder;
withStubHuggingFace((request) => responder(request));

beforeEach(() => {
  responder = () => ({ status: 500, body: { error: 'no responder set for this test' } });
});

describe('Hugging Face expert provider: inputs', () => {
  it('image-to-3d is refused, not retryable, without a request', async () => {
    const error = await failure({
      task: 'image-to-3d',
      model: 'stabilityai/TripoSR',
      inputs: { image: image() },
    });
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/Hugging Face inference client has no image-to-3d task/);
    expect(stub.requests).toHaveLength(0);
  });

  it('a missing input is named with its task, without a request', async () => {
    const error = await failure({
      task: 'visual-question-answering',
      model: 'dandelin/vilt-b32-finetuned-vqa',
      inputs: { image: image() },
    });
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('visual-question-answering');
    expect(error.message).toContain('"question"');
    expect(stub.requests).toHaveLength(0);
  });

  it('an image given as a data: URL is sent as its bytes', async () => {
    responder = () => ({ body: [{ label: 'red', score: 1 }] });
    const result = await run({
      task: 'image-classification',
      model: 'm',
      inputs: { image: `data:image/png;base64,${png.toString('base64')}` },
    });
    expect(result.output).toEqual([{ label: 'red', score: 1 }]);
    expect(last().body.equals(png)).toBe(true);
    expect(last().headers['content-type']).toBe('image/png');
  });

  it('text where an image is expected is refused', async () => {
    const error = await failure({
      task: 'image-classification',
      model: 'm',
      inputs: { image: 'not an image' },
    });
    expect(error.message).toMatch(/image-classification input "image" must be image bytes/);
  });
});
