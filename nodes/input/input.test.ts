import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fillExamples } from '../../app/cli/inputs.ts';
import { compileGraph } from '../../app/compiler/index.ts';
import { loadNodeRegistry } from '../../app/node-sdk/registry.ts';
import { BlobStore } from '../../app/runtime/blobs.ts';

const PNG = readFileSync(new URL('../../templates/nlsom-vqa.example.png', import.meta.url));
const PNG_URL = `data:image/png;base64,${PNG.toString('base64')}`;

/** A document of two inputs (text and image) wired to outputs, with the given input data. */
function doc(question: Record<string, unknown>, image: Record<string, unknown>) {
  const input = (id: string, data: Record<string, unknown>) => ({
    id,
    type: 'input',
    position: { x: 0, y: 0 },
    data: { name: id, ...data },
  });
  const output = (id: string) => ({
    id,
    type: 'output',
    position: { x: 0, y: 0 },
    data: { name: id },
  });
  return {
    version: 1,
    name: 'examples',
    nodes: [
      input('question', question),
      input('image', { modality: 'image', ...image }),
      output('q_out'),
      output('i_out'),
    ],
    edges: [
      {
        id: 'e1',
        source: 'question',
        sourceHandle: 'value',
        target: 'q_out',
        targetHandle: 'value',
      },
      { id: 'e2', source: 'image', sourceHandle: 'value', target: 'i_out', targetHandle: 'value' },
    ],
  };
}

async function compile(document: unknown) {
  return compileGraph(JSON.stringify(document), await loadNodeRegistry());
}

describe('example inputs', () => {
  it('are used for inputs the command line gives no value, one line each saying so', async () => {
    const compiled = await compile(doc({ example: 'Which shape?' }, { example: PNG_URL }));
    if (!compiled.ok) throw new Error(compiled.problems[0]!.message);
    const blobs = new BlobStore();
    const given = { inputs: {}, humanAnswers: {} };
    const lines = fillExamples(given, compiled.plan, blobs);
    expect(lines).toEqual([
      'using the example input question="Which shape?" (from the document)',
      'using the example input image=<image/png, 329 bytes> (from the document)',
    ]);
    const image = (given.inputs as Record<string, { $image: string }>).image!;
    expect(given.inputs).toMatchObject({ question: 'Which shape?', image: { mime: 'image/png' } });
    expect(Buffer.from(blobs.get(image.$image)!.bytes).equals(PNG)).toBe(true);
  });

  it('give way to a value the command line gives', async () => {
    const compiled = await compile(doc({ example: 'Which shape?' }, { example: PNG_URL }));
    if (!compiled.ok) throw new Error(compiled.problems[0]!.message);
    const given = { inputs: { question: 'Mine?' }, humanAnswers: {} };
    const lines = fillExamples(given, compiled.plan, new BlobStore());
    expect(lines).toHaveLength(1);
    expect(given.inputs.question).toBe('Mine?');
  });

  it('refuses an example file given as a path, or too large, or of the wrong kind', async () => {
    const problems = async (image: unknown, question: unknown = 'ok') => {
      const compiled = await compile(doc({ example: question }, { example: image }));
      return compiled.ok ? [] : compiled.problems.map((p) => `${p.path}: ${p.message}`);
    };
    expect(await problems('templates/nlsom-vqa.example.png')).toEqual([
      'nodes[1].data.example: an example image is embedded as a data: URL ("data:image/png;base64,…"), never a file path',
    ]);
    expect(await problems(`data:image/png;base64,${'A'.repeat(1_400_000)}`)).toEqual([
      'nodes[1].data.example: the example file is 1,050,000 bytes; an embedded example holds at most 1,048,576',
    ]);
    expect(await problems('data:audio/wav;base64,AAAA')).toEqual([
      'nodes[1].data.example: the example is audio/wav, which is not an image type',
    ]);
    expect(await problems(PNG_URL, 42)).toEqual([
      'nodes[0].data.example: a text example must be a string',
    ]);
  });
});
