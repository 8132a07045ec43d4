import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { run } from '../../tests/support/graphs.ts';

const read = (name: string) => readFileSync(new URL(`../../templates/${name}`, import.meta.url));

describe('the NLSOM VQA mindstorm, simulated', () => {
  it('answers with the option its members measured in the picture (a red circle)', async () => {
    const template = JSON.parse(read('nlsom-vqa.society.json').toString('utf8'));
    const blobs = new BlobStore();
    const image = blobs.putImage(read('nlsom-vqa.example.png'), 'image/png');
    const question =
      'What is the large shape in the picture? (a) a green triangle (b) a blue square (c) a red circle (d) a yellow star';
    const { outputs, status } = await run(template, {
      simulate: true,
      blobs,
      inputs: { question, image },
    });
    expect(status).toBe('succeeded');
    expect(outputs.answer).toBe('[simulated] (c)');
    expect(String(outputs.transcript)).toContain('mostly red');
  });
});
